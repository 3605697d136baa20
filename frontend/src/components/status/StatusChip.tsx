import Chip from '@mui/material/Chip';

export type StatusColor = 'default' | 'primary' | 'secondary' | 'success' | 'error' | 'warning' | 'info';

/**
 * A small status label (e-mail status, Active/Inactive, Available/Redeemed, licence usage). `data-color`
 * names the colour for tests and styles.
 */
export function StatusChip({
  label,
  color = 'default',
  variant = 'filled',
  capitalize = false,
}: {
  label: string;
  color?: StatusColor;
  variant?: 'filled' | 'outlined';
  capitalize?: boolean;
}) {
  return (
    <Chip
      size="small"
      label={label}
      color={color}
      data-color={color}
      variant={variant}
      sx={capitalize ? { textTransform: 'capitalize' } : undefined}
    />
  );
}
