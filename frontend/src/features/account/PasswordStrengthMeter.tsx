import CheckCircle from '@mui/icons-material/CheckCircle';
import RadioButtonUnchecked from '@mui/icons-material/RadioButtonUnchecked';
import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { passwordStrength, type StrengthLevel } from './passwordStrength';

const LEVEL: Record<StrengthLevel, { label: string; color: 'error' | 'warning' | 'success' }> = {
  weak: { label: 'Weak', color: 'error' },
  medium: { label: 'Medium', color: 'warning' },
  strong: { label: 'Strong', color: 'success' },
};

export function PasswordStrengthMeter({ password }: { password: string }) {
  const strength = passwordStrength(password);
  const level = LEVEL[strength.level];
  return (
    <Box aria-live="polite">
      <Stack direction="row" sx={{ justifyContent: 'space-between', mb: 0.5 }}>
        <Typography variant="caption" sx={{ color: 'text.secondary' }}>
          Password strength
        </Typography>
        <Typography
          variant="caption"
          sx={{ color: `${level.color}.main`, fontWeight: 600 }}
          data-testid="password-strength"
        >
          {level.label}
        </Typography>
      </Stack>
      <LinearProgress
        variant="determinate"
        value={(strength.met / 5) * 100}
        color={level.color}
        aria-label={`Password strength: ${level.label} (${strength.met} of 5 criteria met)`}
      />
      <Stack component="ul" sx={{ listStyle: 'none', p: 0, m: 0, mt: 1 }} spacing={0.25}>
        {strength.criteria.map((c) => (
          <Stack component="li" key={c.id} direction="row" spacing={0.75} sx={{ alignItems: 'center' }}>
            {c.met ? (
              <CheckCircle fontSize="inherit" color="success" aria-hidden />
            ) : (
              <RadioButtonUnchecked fontSize="inherit" color="disabled" aria-hidden />
            )}
            <Typography variant="caption" sx={{ color: c.met ? 'text.primary' : 'text.secondary' }}>
              {c.label}
              <Box
                component="span"
                sx={{ position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)' }}
              >
                {c.met ? ' (met)' : ' (not met)'}
              </Box>
            </Typography>
          </Stack>
        ))}
      </Stack>
    </Box>
  );
}
