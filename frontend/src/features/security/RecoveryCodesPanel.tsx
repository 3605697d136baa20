import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DownloadIcon from '@mui/icons-material/Download';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useEffect, useRef } from 'react';
import { useCopyToClipboard } from '../../components/copy/useCopyToClipboard';
import { saveFile, today } from '../admin/download';

export const RECOVERY_CODES_FILE = () => `recovery-codes-${today()}.txt`;

/**
 * The recovery codes, shown once after enabling two-factor or regenerating them: copy all, download as .txt,
 * then Done. Focus moves to the heading so keyboard and screen-reader users land on the codes.
 */
export function RecoveryCodesPanel({
  codes,
  username,
  onDone,
}: {
  codes: string[];
  username: string;
  onDone: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const { copy, copied } = useCopyToClipboard();
  useEffect(() => heading.current?.focus(), []);
  const text = codes.join('\n');

  const download = () => {
    const body = `Recovery codes for ${username}\nEach code signs you in once in place of the 6-digit code.\n\n${text}\n`;
    saveFile(new Blob([body], { type: 'text/plain;charset=utf-8' }), RECOVERY_CODES_FILE());
  };

  return (
    <Stack spacing={2} component="section" aria-labelledby="recovery-codes-title">
      <Typography
        id="recovery-codes-title"
        variant="h3"
        tabIndex={-1}
        ref={heading}
        sx={{ fontSize: '1.1rem', outline: 'none' }}
      >
        Your Recovery Codes
      </Typography>
      <Alert severity="warning">
        These codes are shown only once. Keep them somewhere safe: each one signs you in once if you lose your
        authenticator app.
      </Alert>
      <Box
        component="ol"
        aria-label="Recovery codes"
        data-testid="recovery-codes"
        sx={{ m: 0, pl: 4, columns: { xs: 1, sm: 2 }, fontFamily: 'monospace', fontSize: '1rem', lineHeight: 1.9 }}
      >
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </Box>
      <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
        <Button
          variant="outlined"
          startIcon={<ContentCopyIcon />}
          onClick={() => void copy(text, { label: 'Recovery codes' })}
        >
          {copied ? 'Copied' : 'Copy Codes'}
        </Button>
        <Button variant="outlined" startIcon={<DownloadIcon />} onClick={download}>
          Download .txt
        </Button>
        <Button variant="contained" onClick={onDone}>
          I Have Saved My Codes
        </Button>
      </Stack>
    </Stack>
  );
}
