import DeleteIcon from '@mui/icons-material/Delete';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';

interface Props {
  /** What the button deletes, for screen readers: the label reads "Delete <label>". */
  label: string;
  onClick: () => void;
  disabled?: boolean;
}

/** The row action of every list that deletes (redemptions, licence keys, voucher codes): one look, one label. */
export function DeleteButton({ label, onClick, disabled }: Props) {
  const button = (
    <IconButton size="small" color="error" aria-label={`Delete ${label}`} onClick={onClick} disabled={disabled}>
      <DeleteIcon fontSize="small" />
    </IconButton>
  );
  // A disabled button fires no events, so its tooltip needs a wrapper to show.
  return <Tooltip title="Delete">{disabled ? <span>{button}</span> : button}</Tooltip>;
}
