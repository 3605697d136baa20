import { forwardRef, Module } from '@nestjs/common';
import { VoucherModule } from '../voucher/voucher.module';
import { ProductController } from './product.controller';
import { ProductRepository } from './product.repository';
import { ProductService } from './product.service';

@Module({
  imports: [forwardRef(() => VoucherModule)],
  controllers: [ProductController],
  providers: [ProductRepository, ProductService],
  exports: [ProductRepository, ProductService],
})
export class ProductModule {}
