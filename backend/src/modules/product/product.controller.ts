import { Body, Controller, Get, HttpCode, Param, Post, Put, Req } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { UuidParam } from '../../common/pipes/uuid-param.pipe';
import { requestActor } from '../../common/utils/request-actor';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { Permission } from '../../common/permissions';
import { CreateProductDto, TestEmailDto, UpdateProductDto } from './dto/product.dto';
import { ProductService } from './product.service';

const productId = UuidParam('product');

@ApiTags('admin: products')
@Controller('products')
export class ProductController {
  constructor(private readonly products: ProductService) {}

  @Get()
  @RequirePermissions(Permission.DashboardView)
  @ApiOperation({ summary: 'Every product with its unredeemed and redeemed code counts' })
  list() {
    return this.products.list();
  }

  @Get(':id')
  @RequirePermissions(Permission.DashboardView)
  @ApiOperation({ summary: 'One product with its code counts' })
  get(@Param('id', productId) id: string) {
    return this.products.get(id);
  }

  @Post()
  @RequirePermissions(Permission.ProductsEdit)
  @ApiOperation({ summary: 'Create a product' })
  create(@Body() dto: CreateProductDto, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.products.create(dto, requestActor(req, user));
  }

  @Put(':id')
  @RequirePermissions(Permission.ProductsEdit)
  @ApiOperation({ summary: 'Change product fields (partial), e.g. {emailSubject, emailTemplate}' })
  update(
    @Param('id', productId) id: string,
    @Body() dto: UpdateProductDto,
    @Req() req: Request,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.products.update(id, dto, requestActor(req, user));
  }

  @Post(':id/test-email')
  @HttpCode(200)
  @RequirePermissions(Permission.ProductsEdit)
  @ApiOperation({
    summary: 'Send the (saved or given) e-mail template with sample values to a staff address',
    description: 'Only to the e-mail of an active admin account (else 400); at most 10 per user per hour, then 429.',
  })
  @ApiResponse({ status: 400, description: 'Test e-mails can only be sent to the e-mail address of a staff account.' })
  @ApiResponse({ status: 429, description: 'Too many test e-mails: at most 10 per hour. Please try again later.' })
  testEmail(
    @Param('id', productId) id: string,
    @Body() dto: TestEmailDto,
    @Req() req: Request,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.products.sendTestEmail(id, dto, requestActor(req, user));
  }
}
