import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/decorators/public.decorator';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { publicConfigOf } from './public-config';

class PublicConfigResponse {
  @ApiProperty({ example: 'support@example.com' }) supportEmail: string;
  @ApiProperty({ example: 'Office Licences' }) companyName: string;
  @ApiProperty() companyAddress: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Contoso',
    description: 'Single sign-on provider name; null when off',
  })
  ssoDisplayName: string | null;
}

@ApiTags('public')
@Controller('public-config')
export class PublicConfigController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Public()
  @Get()
  @ApiOperation({
    summary: "Support e-mail, company name and address for the pages' texts; the single sign-on provider's name",
  })
  @ApiOkResponse({ type: PublicConfigResponse })
  get(): PublicConfigResponse {
    return publicConfigOf(this.config);
  }
}
