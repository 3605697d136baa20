import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ProductModule } from '../product/product.module';
import { UploadBatchRepository } from './upload-batch.repository';
import { UploadBatchService } from './upload-batch.service';
import { VoucherCodeRepository } from './voucher-code.repository';
import { VoucherUploadService } from './voucher-upload.service';
import { VoucherController } from './voucher.controller';
import { VoucherService } from './voucher.service';
import { VoucherVoidRepository } from './voucher-void.repository';
import { VoucherVoidService } from './voucher-void.service';

/**
 * Voucher codes: lists, upload, deletes, voids (refunds), upload batches. `VoucherCodeRepository` and the void's
 * `VoucherVoidRepository` hold this module's SQL on voucher_codes, `UploadBatchRepository` upload_batches; a void
 * tells the redeemed codes it found as the domain event `vouchers.refunded`, which the redemption module handles on
 * the void's transaction (it marks their redemptions refunded).
 */
@Module({
  // Codes check their product there; products count their codes from the counters, not here (no cycle). Batches
  // read their counts from the product module's counters and their uploaders' names from auth.
  imports: [AuthModule, ProductModule],
  controllers: [VoucherController],
  providers: [
    VoucherCodeRepository,
    VoucherVoidRepository,
    UploadBatchRepository,
    VoucherService,
    VoucherUploadService,
    VoucherVoidService,
    UploadBatchService,
  ],
  // The batch repository for the reconciliation export (export module); the listed upload and void, the code's
  // product for the marketplace connections.
  exports: [VoucherCodeRepository, VoucherVoidService, UploadBatchRepository, VoucherUploadService],
})
export class VoucherModule {}
