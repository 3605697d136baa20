import { Module } from '@nestjs/common';
import { VoucherUploadService } from './voucher-upload.service';
import { VoucherController } from './voucher.controller';
import { VoucherService } from './voucher.service';

@Module({
  controllers: [VoucherController],
  providers: [VoucherService, VoucherUploadService],
})
export class VoucherModule {}
