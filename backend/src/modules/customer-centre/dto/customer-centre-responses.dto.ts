import { ApiProperty } from '@nestjs/swagger';

export class CustomerSessionResponse {
  @ApiProperty({ description: 'Bearer token of the licence-centre routes (24 hours, this e-mail address only)' })
  customerToken: string;
  @ApiProperty({ example: 'ann@example.com' }) email: string;
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
}

/** The customer's own licence: not inventory to mask (docs/architecture.md "Inventory fields"), like the success page's. */
export class CustomerLicenceResponse {
  @ApiProperty({ format: 'uuid' }) redemptionId: string;
  @ApiProperty() productName: string;
  @ApiProperty({ example: 'ABCD-1234' }) voucherCode: string;
  @ApiProperty({ format: 'date-time' }) redeemedAt: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Null while the licence waits for a key (manual processing)',
  })
  licenseKey: string | null;
  @ApiProperty() downloadLink: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "Mac products: the customer's licence package (License Activation); null otherwise or not yet",
  })
  activationLink: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Mac products: the Office Removal Tool; null otherwise' })
  removalToolLink: string | null;
  @ApiProperty() isManualProcessing: boolean;
  @ApiProperty({ description: 'Held for review by a risk rule (docs/product.md §25.2): no key until staff approve it' })
  heldForReview: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'date-time',
    description: 'Refunded (docs/product.md §19.3): then no key, no download and no resend',
  })
  refundedAt: string | null;
  @ApiProperty({ enum: ['pending', 'sent', 'failed'] }) emailStatus: string;
}

class PrivacyRequestRow {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['link-sent', 'link-limit', 'data-export', 'erasure'] }) kind: string;
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'The customer row (never its e-mail)' })
  customerId: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Erasure: the redemptions erased' })
  redemptions: number | null;
}

export class PrivacyRequestsResponse {
  @ApiProperty({ type: [PrivacyRequestRow] }) requests: PrivacyRequestRow[];
}
