import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ErrorResponse } from '../../../common/openapi/api-responses';
import { PaginationResponse } from '../../../common/dto/page.query';
import { Inventory } from '../../../common/inventory/inventory';
import { Permission } from '../../../common/permissions';

export class UploadResponse {
  @ApiProperty({ example: '980 voucher codes uploaded, skipped 15 duplicates and 5 invalid lines.' }) message: string;
  @ApiProperty() inserted: number;
  @ApiProperty() duplicates: number;
  @ApiProperty() invalid: number;
  @ApiProperty({ type: [String], description: 'The first 10 invalid lines, cut to 50 characters' })
  invalidSamples: string[];
  @ApiProperty({
    format: 'uuid',
    description: 'The upload batch (docs/product.md §20.1): GET /api/products/{id}/batches',
  })
  batchId: string;
}

class VoucherCustomer {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() firstName: string;
  @ApiProperty() lastName: string;
  @ApiProperty() email: string;
}

class VoucherRedemption {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) redeemedAt: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Set when the code was refunded after redemption (docs/product.md §19.3); the customer keeps the key',
  })
  refundedAt: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'The customer erased their personal data (docs/product.md §21.3): names and e-mail are empty',
  })
  erasedAt: string | null;
  @ApiProperty({ enum: ['pending', 'sent', 'failed'] }) emailStatus: string;
  @ApiProperty({ type: VoucherCustomer }) customer: VoucherCustomer;
}

class VoucherCodeResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @Inventory(Permission.VouchersView)
  @ApiProperty({ example: 'ABC-123', description: 'Masked (docs/product.md §10.6) for a caller without vouchers.view' })
  code: string;
  @ApiProperty() isRedeemed: boolean;
  @ApiProperty({
    enum: ['available', 'redeemed', 'void'],
    description: 'void: refunded before redemption (docs/product.md §19.3)',
  })
  status: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) redeemedAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) voidedAt: string | null;
  @ApiProperty({ type: VoucherRedemption, nullable: true }) redemption: VoucherRedemption | null;
}

export class VoucherCodePageResponse {
  @ApiProperty({ type: [VoucherCodeResponse] }) codes: VoucherCodeResponse[];
  @ApiProperty({ type: PaginationResponse, description: "The admin lists' pagination object" })
  pagination: PaginationResponse;
  @ApiProperty({ description: 'pagination.totalCount: exact up to 1,000 matches, else PostgreSQL’s estimate' })
  totalCount: number;
  @ApiProperty({ description: 'pagination.hasNextPage: always exact' }) hasMore: boolean;
  @ApiProperty() totalCountExact: boolean;
}

export class DeleteVoucherCodesResponse {
  @ApiProperty() message: string;
  @ApiProperty() deletedCount: number;
  @ApiProperty({ description: 'Redeemed codes, codes of other products and unknown ids' }) skippedCount: number;
}

class RefundedAfterRedemptionResponse {
  @ApiProperty() code: string;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'Null when the redemption was deleted since',
  })
  redemptionId: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) redeemedAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) refundedAt: string | null;
}

/** `POST /api/products/{id}/voucher-codes/void` (docs/product.md §19.3). */
export class VoidResponse {
  @ApiProperty({ example: '3 voucher codes voided, 1 refunded after redemption.' }) message: string;
  @ApiProperty({ description: 'Available codes that are now void' }) voided: number;
  @ApiProperty({
    type: [RefundedAfterRedemptionResponse],
    description: 'Codes already redeemed: their redemption is marked refunded, the key stays assigned',
  })
  refundedAfterRedemption: RefundedAfterRedemptionResponse[];
  @ApiProperty({ description: 'Codes this product does not have' }) unknown: number;
  @ApiProperty() alreadyVoid: number;
  @ApiProperty() invalid: number;
  @ApiProperty({ type: [String], description: 'The first 10 invalid lines, cut to 50 characters' })
  invalidSamples: string[];
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: "The void file's batch (docs/product.md §20.1); null for codes sent as JSON",
  })
  batchId: string | null;
}

/** A refused upload (400): the error body, with the file's report when it held no valid code (nothing written). */
export class UploadRefusedResponse extends ErrorResponse {
  @ApiPropertyOptional() inserted?: number;
  @ApiPropertyOptional() duplicates?: number;
  @ApiPropertyOptional() invalid?: number;
  @ApiPropertyOptional({ type: [String], description: 'The first 10 invalid lines, cut to 50 characters' })
  invalidSamples?: string[];
}

/** A refused void request (400): the error body, with the file's report when it held no valid code (nothing written). */
export class VoidRefusedResponse extends ErrorResponse {
  @ApiPropertyOptional() voided?: number;
  @ApiPropertyOptional({ type: [RefundedAfterRedemptionResponse] })
  refundedAfterRedemption?: RefundedAfterRedemptionResponse[];
  @ApiPropertyOptional() unknown?: number;
  @ApiPropertyOptional() alreadyVoid?: number;
  @ApiPropertyOptional() invalid?: number;
  @ApiPropertyOptional({ type: [String], description: 'The first 10 invalid lines, cut to 50 characters' })
  invalidSamples?: string[];
}

/** Live figures of a batch's codes, from the counters (docs/product.md §20.1). */
class UploadBatchCounts {
  @ApiProperty({ description: 'Codes of the batch that exist (inserted, less available codes deleted since)' })
  uploaded: number;
  @ApiProperty() redeemed: number;
  @ApiProperty({ description: 'Available: neither redeemed nor void' }) unredeemed: number;
  @ApiProperty({ description: 'Voided (refunded before redemption)' }) void: number;
  @ApiProperty({ description: 'Redemptions of its codes marked exported' }) exported: number;
}

/** `GET /api/products/{id}/batches` (docs/product.md §20.1). */
export class UploadBatchResponse {
  @ApiProperty({ format: 'uuid', description: 'A "before-batches" batch has the product\'s id' }) id: string;
  @ApiProperty({
    enum: ['upload', 'void', 'before-batches'],
    description:
      'upload: a file of codes; void: a void (refund) file; before-batches: the codes that came by no upload',
  })
  kind: string;
  @ApiProperty({ type: String, nullable: true, example: 'marketplace-2026-11.csv' }) fileName: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Username; null for before-batches, the demo or a deleted account',
  })
  uploadedBy: string | null;
  @ApiProperty({ format: 'date-time' }) uploadedAt: string;
  @ApiProperty({
    description: 'Upload: codes added. Void file: codes voided. before-batches: codes when batches began',
  })
  inserted: number;
  @ApiProperty({ description: 'Upload: codes that existed already or repeated. Void file: codes already void' })
  duplicates: number;
  @ApiProperty({ description: 'Lines that were not a voucher code' }) invalid: number;
  @ApiProperty({ description: 'Void file: redeemed codes whose redemption it marked refunded (0 otherwise)' })
  refunded: number;
  @ApiProperty({ description: 'Void file: codes the product does not have (0 otherwise)' }) unknown: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Why the upload failed after its load began (cut off, no storage space, a server error); it added nothing. ' +
      'Null for a batch that loaded (docs/product.md §20.6)',
  })
  failure: string | null;
  @ApiProperty({
    type: UploadBatchCounts,
    nullable: true,
    description: 'Live counts of its codes; null for a void file, which brings none',
  })
  counts: UploadBatchCounts | null;
}
