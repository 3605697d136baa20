import { Module } from '@nestjs/common';
import { GeoService } from './geo.service';

/** Country of a client address and the GEO_BLOCKED_COUNTRIES rule; one instance holds the country database. */
@Module({
  providers: [GeoService],
  exports: [GeoService],
})
export class GeoModule {}
