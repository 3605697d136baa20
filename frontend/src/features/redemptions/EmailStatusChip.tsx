import { StatusChip } from '../../components/status/StatusChip';

/** docs/product.md §5.3: sent green, failed red, pending yellow, anything else grey. */
export function emailStatusColor(status: string): 'success' | 'error' | 'warning' | 'default' {
  switch (status) {
    case 'sent':
      return 'success';
    case 'failed':
      return 'error';
    case 'pending':
      return 'warning';
    default:
      return 'default';
  }
}

export function EmailStatusChip({ status }: { status: string }) {
  const color = emailStatusColor(status);
  return <StatusChip label={status} color={color} variant={color === 'default' ? 'outlined' : 'filled'} capitalize />;
}
