import { Module } from '@nestjs/common';
import { PublicConfigController } from './public-config.controller';

/** The public part of the configuration (support address, company) for the pages' texts. */
@Module({
  controllers: [PublicConfigController],
})
export class PublicConfigModule {}
