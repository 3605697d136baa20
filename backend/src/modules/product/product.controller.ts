import { Body, Controller, Get, HttpCode, Param, Post, Put, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses, MessageResponse } from '../../common/openapi/api-responses';
import { ProductResponse } from './dto/product-responses.dto';
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
  @ApiOkResponse({ type: [ProductResponse] })
  list() {
    return this.products.list();
  }

  @Get(':id')
  @RequirePermissions(Permission.DashboardView)
  @ApiOperation({ summary: 'One product with its code counts' })
  @ApiOkResponse({ type: ProductResponse })
  @ApiErrorResponses({ 400: 'Invalid product ID.', 404: 'Product not found.' })
  get(@Param('id', productId) id: string) {
    return this.products.get(id);
  }

  @Post()
  @RequirePermissions(Permission.ProductsEdit)
  @ApiOperation({ summary: 'Create a product' })
  @ApiCreatedResponse({ type: ProductResponse })
  @ApiErrorResponses(400, { 409: 'A product with this name already exists.' })
  create(@Body() dto: CreateProductDto, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.products.create(dto, requestActor(req, user));
  }

  @Put(':id')
  @RequirePermissions(Permission.ProductsEdit)
  @ApiOperation({ summary: 'Change product fields (partial), e.g. {emailSubject, emailTemplate}' })
  @ApiOkResponse({ type: ProductResponse })
  @ApiErrorResponses(400, { 404: 'Product not found.', 409: 'A product with this name already exists.' })
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
  @ApiOkResponse({ type: MessageResponse })
  @ApiErrorResponses({
    400: 'Test e-mails can only be sent to the e-mail address of a staff account.',
    404: 'Product not found.',
    429: 'Too many test e-mails: at most 10 per hour. Please try again later.',
    502: 'The test email could not be sent: … (every provider failed)',
  })
  testEmail(
    @Param('id', productId) id: string,
    @Body() dto: TestEmailDto,
    @Req() req: Request,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.products.sendTestEmail(id, dto, requestActor(req, user));
  }
}
