import { ApiProperty } from '@nestjs/swagger';

export class ProductResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Office 2024 Professional Plus (Windows)' }) name: string;
  @ApiProperty({ example: 'https://setup.office.com/' }) downloadLink: string;
  @ApiProperty({ type: String, nullable: true }) productKey: string | null;
  @ApiProperty({ description: 'HTML with {{customer_name}}, {{voucher_code}}, {{license_key}}, {{download_link}}' })
  emailTemplate: string;
  @ApiProperty() emailSubject: string;
  @ApiProperty({ enum: ['active', 'inactive'] }) status: string;
  @ApiProperty() isLicenseManaged: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
  @ApiProperty() unredeemedCount: number;
  @ApiProperty() redeemedCount: number;
  @ApiProperty() totalCount: number;
}
