import { Global, Module } from '@nestjs/common';
import { AttemptsModule } from '../attempts/attempts.module';
import { RedeemRisk } from '../redemption/redeem-risk';
import { RiskAssessmentService } from './risk-assessment.service';
import { RiskController } from './risk.controller';
import { RiskRepository } from './risk.repository';
import { RiskService } from './risk.service';

/**
 * The risk rules (docs/product.md §25.1): the settings and blocklist API, and the check at redeem. Global
 * only to provide `RedeemRisk` to the redemption module, which imports nothing of this one.
 */
@Global()
@Module({
  imports: [AttemptsModule],
  controllers: [RiskController],
  providers: [
    RiskRepository,
    RiskService,
    RiskAssessmentService,
    { provide: RedeemRisk, useExisting: RiskAssessmentService },
  ],
  exports: [RedeemRisk],
})
export class RiskModule {}
