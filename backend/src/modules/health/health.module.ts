import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { PublicConfigController } from '../public-config/public-config.controller';
import { HealthController } from './health.controller';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController, PublicConfigController],
})
export class HealthModule {}
