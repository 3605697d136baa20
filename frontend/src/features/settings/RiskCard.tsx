import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Divider from '@mui/material/Divider';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';
import { DeleteButton } from '../../components/actions/DeleteButton';
import { toast } from '../../components/toast';
import { bodyMessage } from '../../utils/httpError';
import {
  type CreateBlocklistEntryDto,
  type RiskRulesDto,
  useRiskControllerAddMutation,
  useRiskControllerBlocklistQuery,
  useRiskControllerRemoveMutation,
  useRiskControllerRulesQuery,
  useRiskControllerSaveRulesMutation,
} from '../../api';

type RuleName = keyof RiskRulesDto;
const RULES: Array<{ name: RuleName; label: string; threshold?: string }> = [
  { name: 'emailPerDay', label: 'Redemptions per e-mail within 24 hours', threshold: 'More than' },
  { name: 'addressPerHour', label: 'Redemptions per address within 1 hour', threshold: 'More than' },
  { name: 'disposableEmail', label: 'Disposable e-mail domains' },
  { name: 'countryMismatch', label: "Phone country differs from the address's country" },
  { name: 'blocklist', label: 'Blocklist (below)' },
];
const KINDS: Array<CreateBlocklistEntryDto['kind']> = ['email', 'domain', 'address', 'phone'];

function Blocklist() {
  const { data: entries = [], refetch } = useRiskControllerBlocklistQuery();
  const [add, { isLoading }] = useRiskControllerAddMutation();
  const [remove] = useRiskControllerRemoveMutation();
  const [kind, setKind] = useState<CreateBlocklistEntryDto['kind']>('email');
  const [value, setValue] = useState('');
  const onAdd = async () => {
    const result = await add({ kind, value });
    if ('error' in result) {
      toast({ title: 'Not added', description: bodyMessage(result.error), variant: 'destructive' });
      return;
    }
    setValue('');
    void refetch();
  };
  const onRemove = async (id: string) => {
    const result = await remove(id);
    if ('error' in result) {
      toast({ title: 'Not removed', description: bodyMessage(result.error), variant: 'destructive' });
    }
    void refetch();
  };
  return (
    <Box>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ my: 1 }}>
        <TextField
          select
          size="small"
          label="Kind"
          value={kind}
          onChange={(e) => setKind(e.target.value as CreateBlocklistEntryDto['kind'])}
          sx={{ minWidth: 120 }}
        >
          {KINDS.map((k) => (
            <MenuItem key={k} value={k}>
              {k}
            </MenuItem>
          ))}
        </TextField>
        <TextField size="small" label="Value" value={value} onChange={(e) => setValue(e.target.value)} />
        <Button variant="outlined" onClick={() => void onAdd()} disabled={isLoading || !value.trim()}>
          Add to blocklist
        </Button>
      </Stack>
      {entries.map((e) => (
        <Stack key={e.id} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Typography variant="body2" sx={{ minWidth: 70, color: 'text.secondary' }}>
            {e.kind}
          </Typography>
          <Typography variant="body2" sx={{ fontFamily: 'monospace', flexGrow: 1 }}>
            {e.value}
          </Typography>
          <Typography variant="caption">{`${e.hits} ${e.hits === 1 ? 'hit' : 'hits'}`}</Typography>
          <DeleteButton label={`blocklist entry ${e.value}`} onClick={() => void onRemove(e.id)} />
        </Stack>
      ))}
    </Box>
  );
}

/**
 * Settings → Risk (docs/product.md §25.1, admin): each rule on or off, its threshold and its action (hold for review,
 * or refuse), and the blocklist with its hit counts.
 */
export function RiskCard() {
  const { data } = useRiskControllerRulesQuery();
  const [rules, setRules] = useState<RiskRulesDto | undefined>(data);
  const [save, { isLoading }] = useRiskControllerSaveRulesMutation();
  useEffect(() => setRules(data), [data]);
  const set = (name: RuleName, change: Partial<RiskRulesDto[RuleName]>) =>
    setRules((r) => (r ? { ...r, [name]: { ...r[name], ...change } } : r));
  const onSave = async () => {
    if (!rules) return;
    const result = await save(rules);
    if ('error' in result) {
      toast({ title: 'Risk rules not saved', description: bodyMessage(result.error), variant: 'destructive' });
    } else toast({ title: 'Risk rules saved', variant: 'success' });
  };
  return (
    <Card variant="outlined" component="section" aria-labelledby="risk-title">
      <CardContent>
        <Typography id="risk-title" variant="h3" component="h2" gutterBottom>
          Risk
        </Typography>
        <Typography variant="body2" sx={{ color: 'text.secondary', mb: 2 }}>
          Rules checked before a code is redeemed: a match holds the redemption for review (the Review tab) or refuses
          it.
        </Typography>
        {rules &&
          RULES.map(({ name, label, threshold }) => (
            <Stack
              key={name}
              direction={{ xs: 'column', md: 'row' }}
              spacing={2}
              sx={{ alignItems: { md: 'center' }, mb: 1 }}
            >
              <FormControlLabel
                sx={{ flexGrow: 1 }}
                label={label}
                control={
                  <Switch checked={rules[name].enabled} onChange={(e) => set(name, { enabled: e.target.checked })} />
                }
              />
              {threshold && (
                <TextField
                  size="small"
                  type="number"
                  label={threshold}
                  value={rules[name].threshold ?? ''}
                  onChange={(e) => set(name, { threshold: Number(e.target.value) })}
                  sx={{ width: 120 }}
                />
              )}
              <TextField
                select
                size="small"
                label="Action"
                value={rules[name].action}
                onChange={(e) => set(name, { action: e.target.value as 'review' | 'refuse' })}
                sx={{ width: 180 }}
              >
                <MenuItem value="review">Hold for review</MenuItem>
                <MenuItem value="refuse">Refuse</MenuItem>
              </TextField>
            </Stack>
          ))}
        <Button variant="contained" onClick={() => void onSave()} disabled={!rules || isLoading}>
          Save rules
        </Button>
        <Divider sx={{ my: 2 }} />
        <Typography variant="subtitle2">Blocklist</Typography>
        <Blocklist />
      </CardContent>
    </Card>
  );
}
