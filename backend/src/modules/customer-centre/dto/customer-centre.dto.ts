import { ApiProperty, PickType } from '@nestjs/swagger';
import { Equals, IsString, Length } from 'class-validator';
import { RedeemVoucherDto } from '../../redemption/dto/redeem-voucher.dto';

/** `POST /api/customer/access`: the address, with the redeem form's rules (trimmed, lower-cased). */
export class CustomerAccessDto extends PickType(RedeemVoucherDto, ['email'] as const) {}

export class CustomerSessionDto {
  @ApiProperty({ description: 'The `token` of the sign-in link (/my-licences?token=…)' })
  @Length(10, 100, { message: 'This sign-in link has expired. Please request a new one.' })
  @IsString({ message: 'This sign-in link has expired. Please request a new one.' })
  token: string;
}

export class CustomerErasureDto {
  @ApiProperty({ enum: [true], description: 'Must be true: the customer confirmed the erasure' })
  @Equals(true, { message: 'Please confirm that your personal data should be deleted.' })
  confirm: boolean;
}
