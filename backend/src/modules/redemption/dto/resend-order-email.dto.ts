import { PickType } from '@nestjs/swagger';
import { RedeemVoucherDto } from './redeem-voucher.dto';

/** "Didn't get the e-mail?": the code and the e-mail of the redemption, with the redeem form's rules (docs/product.md §6.1). */
export class ResendOrderEmailDto extends PickType(RedeemVoucherDto, ['voucherCode', 'email'] as const) {}
