import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { RealtimeGateway } from './realtime.gateway';
import { RealtimeListener } from './realtime.listener';
import { RealtimeService } from './realtime.service';

/**
 * The admin consoles' socket.io events (`dataUpdate`, docs/product.md §17): the gateway, and the listener of the domain
 * events that tells them. Imported by the application module only; the bootstrap reaches `RealtimeService` through
 * the application (app.factory.ts), no feature injects it.
 */
@Module({
  imports: [AuthModule],
  providers: [RealtimeService, RealtimeGateway, RealtimeListener],
  exports: [RealtimeService],
})
export class RealtimeModule {}
