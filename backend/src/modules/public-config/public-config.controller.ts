import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/decorators/public.decorator';
import { APP_CONFIG, AppConfig } from '../../config/app-config';

@ApiTags('public')
@Controller('public-config')
export class PublicConfigController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Public()
  @Get()
  @ApiOperation({ summary: "Support e-mail, company name and address for the pages' texts" })
  get() {
    return {
      supportEmail: this.config.supportEmail,
      companyName: this.config.companyName,
      companyAddress: this.config.companyAddress,
    };
  }
}
