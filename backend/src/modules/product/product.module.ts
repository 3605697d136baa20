import { Module } from '@nestjs/common';
import { MailModule } from '../mail/mail.module';
import { ProductController } from './product.controller';
import { ProductService } from './product.service';

@Module({
  imports: [MailModule],
  controllers: [ProductController],
  providers: [ProductService],
  exports: [ProductService],
})
export class ProductModule {}
