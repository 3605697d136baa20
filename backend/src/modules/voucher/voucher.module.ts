import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ProductModule } from '../product/product.module';
import { RedemptionModule } from '../redemption/redemption.module';
import { UploadBatchRepository } from './upload-batch.repository';
import { UploadBatchService } from './upload-batch.service';
import { VoucherCodeRepository } from './voucher-code.repository';
import { VoucherUploadService } from './voucher-upload.service';
import { VoucherController } from './voucher.controller';
import { VoucherService } from './voucher.service';
import { VoucherVoidService } from './voucher-void.service';

/**
 * Voucher codes: lists, upload, deletes, voids (refunds), upload batches. `VoucherCodeRepository` is the only code
 * touching voucher_codes, `UploadBatchRepository` upload_batches; a void hands the redeemed codes it found to the
 * redemption module's `RefundService`, which marks their redemptions refunded on the void's transaction.
 */
@Module({
  // Codes check their product there; products count their codes from the counters, not here (no cycle). Batches
  // read their counts from the product module's counters and their uploaders' names from auth.
  imports: [AuthModule, ProductModule, RedemptionModule],
  controllers: [VoucherController],
  providers: [
    VoucherCodeRepository,
    UploadBatchRepository,
    VoucherService,
    VoucherUploadService,
    VoucherVoidService,
    UploadBatchService,
  ],
  // The batch repository for the reconciliation export (export module).
  exports: [VoucherCodeRepository, VoucherVoidService, UploadBatchRepository],
})
export class VoucherModule {}
