import CheckIcon from '@mui/icons-material/Check';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';

/** The copy icon: a check mark in green while `copied` (docs/product.md §10.4: for 2 s, see `useCopyToClipboard`). */
export function CopyButton({
  copied,
  label,
  copiedLabel,
  onClick,
  size = 'medium',
}: {
  copied: boolean;
  /** Accessible name, e.g. "Copy license key". */
  label: string;
  /** Accessible name while confirming, e.g. "License key copied". */
  copiedLabel: string;
  onClick: () => void;
  size?: 'small' | 'medium';
}) {
  const iconSize = size === 'small' ? 'small' : 'medium';
  return (
    <Tooltip title={copied ? 'Copied' : 'Copy'}>
      <IconButton
        size={size}
        aria-label={copied ? copiedLabel : label}
        onClick={onClick}
        color={copied ? 'success' : 'default'}
      >
        {copied ? <CheckIcon fontSize={iconSize} /> : <ContentCopyIcon fontSize={iconSize} />}
      </IconButton>
    </Tooltip>
  );
}
