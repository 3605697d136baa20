import { ApiProperty } from '@nestjs/swagger';
import { Inventory } from '../../../common/inventory/inventory';
import { Permission } from '../../../common/permissions';

export class ProductResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Office 2024 Professional Plus (Windows)' }) name: string;
  @ApiProperty({ example: 'https://setup.office.com/' }) downloadLink: string;
  @Inventory(Permission.LicensesView)
  @ApiProperty({
    type: String,
    nullable: true,
    description: "A Mac product's shared key; masked (docs/product.md §10.6) for a caller without licenses.view",
  })
  productKey: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "A Mac product's licence package (License Activation) link (docs/product.md §12.7)",
  })
  activationLink: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "A Mac product's Office Removal Tool link; null: the vendor's own (docs/product.md §12.7)",
  })
  removalToolLink: string | null;
  @ApiProperty({ description: 'HTML with {{customer_name}}, {{voucher_code}}, {{license_key}}, {{download_link}}' })
  emailTemplate: string;
  @ApiProperty() emailSubject: string;
  @ApiProperty({ enum: ['active', 'inactive'] }) status: string;
  @ApiProperty() isLicenseManaged: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
  @ApiProperty() unredeemedCount: number;
  @ApiProperty() redeemedCount: number;
  @ApiProperty({ description: 'Codes voided by a refund before redemption (docs/product.md §19.3)' }) voidCount: number;
  @ApiProperty() totalCount: number;
}
