import { ApiProperty } from '@nestjs/swagger';
import { PaginationResponse } from '../../../common/dto/page.query';
import { Inventory } from '../../../common/inventory/inventory';
import { Permission } from '../../../common/permissions';

export class LicenseManagedProductResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Office 2024 Professional Plus (Windows)' }) name: string;
  @ApiProperty({ enum: ['active', 'inactive'] }) status: string;
  @ApiProperty({ example: 'https://setup.office.com/' }) downloadLink: string;
  @ApiProperty({ enum: [true] }) isLicenseManaged: boolean;
}

export class LicenseKeyResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) productId: string;
  @ApiProperty() productName: string;
  @Inventory(Permission.LicensesView)
  @ApiProperty({ example: 'ABCDE-12345-FGHIJ', description: 'Masked (docs/product.md §10.6) without licenses.view' })
  licenseKey: string;
  @ApiProperty() downloadLink: string;
  @ApiProperty({ enum: ['single-user', 'volume'] }) licenseType: string;
  @ApiProperty() maxActivations: number;
  @ApiProperty() currentActivations: number;
  @ApiProperty() isActive: boolean;
  @ApiProperty({ enum: ['available', 'partially-used', 'fully-used'] }) usageStatus: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class LicenseKeySummaryResponse {
  @ApiProperty() totalKeys: number;
  @ApiProperty() active: number;
  @ApiProperty() available: number;
  @ApiProperty() partiallyUsed: number;
  @ApiProperty() fullyUsed: number;
}

export class LicenseKeyListResponse {
  @ApiProperty({ type: [LicenseKeyResponse] }) licenseKeys: LicenseKeyResponse[];
  @ApiProperty({ type: LicenseKeySummaryResponse }) summary: LicenseKeySummaryResponse;
  @ApiProperty({ type: PaginationResponse }) pagination: PaginationResponse;
}
