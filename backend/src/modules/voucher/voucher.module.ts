import { forwardRef, Module } from '@nestjs/common';
import { ProductModule } from '../product/product.module';
import { VoucherCodeRepository } from './voucher-code.repository';
import { VoucherUploadService } from './voucher-upload.service';
import { VoucherController } from './voucher.controller';
import { VoucherService } from './voucher.service';

/** Voucher codes: lists, upload, deletes. `VoucherCodeRepository` is the only code touching voucher_codes. */
@Module({
  // Products count their codes here, and codes check their product there: each module imports the other.
  imports: [forwardRef(() => ProductModule)],
  controllers: [VoucherController],
  providers: [VoucherCodeRepository, VoucherService, VoucherUploadService],
  exports: [VoucherCodeRepository],
})
export class VoucherModule {}
