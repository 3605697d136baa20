import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PaginationResponse } from '../../../common/dto/page.query';
import { Inventory } from '../../../common/inventory/inventory';
import { Permission } from '../../../common/permissions';

export class RedeemResponse {
  @ApiProperty({ enum: [true] }) success: boolean;
  @ApiProperty({ example: 'Office 2024 Professional Plus (Windows)' }) productName: string;
  @ApiProperty({ description: 'Opens the success page (GET /api/success-token/{token})' }) successToken: string;
}

export class SuccessTokenResponse {
  @ApiProperty({ description: 'true: the key follows by e-mail once staff assign one' }) isManualProcessing: boolean;
  @ApiProperty({ example: 'ann@example.com' }) customerEmail: string;
  @ApiProperty({
    example: 'ABCD-1234',
    description:
      "The customer's own voucher code: fills in the page's \"Didn't get the e-mail?\" (docs/product.md §19.4)",
  })
  voucherCode: string;
  @ApiProperty() productName: string;
  /** The customer's own key, behind their success token: not inventory to mask (docs/architecture.md). */
  @ApiProperty({ type: String, nullable: true }) licenseKey: string | null;
  @ApiProperty() downloadLink: string;
}

class RedemptionVoucherCode {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'ABCD-1234' }) code: string;
}

class RedemptionCustomer {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() firstName: string;
  @ApiProperty() lastName: string;
  @ApiProperty() email: string;
  @ApiProperty({ type: String, nullable: true }) phone: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'US' }) country: string | null;
  @ApiProperty({ type: String, nullable: true }) zipCode: string | null;
}

class RedemptionProduct {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
}

class AssignedLicenseKey {
  @Inventory(Permission.LicensesView)
  @ApiProperty({ example: 'MANUAL_ABCDE-12345', description: 'Masked (docs/product.md §10.6) without licenses.view' })
  licenseKey: string;
  @ApiProperty() downloadLink: string;
}

export class RedemptionResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) voucherCodeId: string;
  @ApiProperty({ format: 'uuid' }) customerId: string;
  @ApiProperty({ format: 'uuid' }) productId: string;
  @ApiProperty({ type: RedemptionVoucherCode }) voucherCode: RedemptionVoucherCode;
  @ApiProperty({ type: RedemptionCustomer }) customer: RedemptionCustomer;
  @ApiProperty({ type: RedemptionProduct }) product: RedemptionProduct;
  @ApiProperty({ enum: ['pending', 'sent', 'failed'] }) emailStatus: string;
  @ApiProperty() isManualProcessing: boolean;
  @ApiProperty({ format: 'date-time' }) redeemedAt: string;
  @ApiProperty() exported: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) exportedAt: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Its code was refunded after redemption (docs/product.md §19.3); the key stays with the customer',
  })
  refundedAt: string | null;
  @ApiProperty({ description: 'Held for review by a risk rule (docs/product.md §25.2): no key until staff approve it' })
  heldForReview: boolean;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'The customer erased their personal data (licence centre): names, e-mail, phone, zip code and country are empty',
  })
  erasedAt: string | null;
  @ApiProperty({ type: AssignedLicenseKey, nullable: true }) assignedLicenseKey: AssignedLicenseKey | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      "Mac products: the customer's licence package (License Activation) link, as in the order e-mail (docs/product.md §12.7); null otherwise or not yet",
  })
  activationLink?: string | null;
}

export class RedemptionListResponse {
  @ApiProperty({ type: [RedemptionResponse] }) redemptions: RedemptionResponse[];
  @ApiProperty({ type: PaginationResponse }) pagination: PaginationResponse;
}

export class SuccessCountResponse {
  @ApiProperty() successCount: number;
}

export class DeletedCountResponse {
  @ApiProperty() deletedCount: number;
}

export class FixPendingResponse {
  @ApiProperty({ description: 'Pending e-mails queued' }) fixedCount: number;
  @ApiProperty({ description: 'Waiting redemptions given a pool key' }) assignedCount: number;
}

class CleanupCounts {
  @ApiProperty() voucherCodes: number;
  @ApiProperty() customers: number;
  @ApiProperty() redemptions: number;
  @ApiProperty() licenseAssignments: number;
}

export class CleanupResponse {
  @ApiProperty({ enum: [true] }) success: boolean;
  @ApiProperty({ example: 'System cleaned successfully' }) message: string;
  @ApiProperty({ type: CleanupCounts }) deleted: CleanupCounts;
}
