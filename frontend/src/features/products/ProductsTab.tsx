import Block from '@mui/icons-material/Block';
import Email from '@mui/icons-material/Email';
import LinkIcon from '@mui/icons-material/Link';
import OpenInNew from '@mui/icons-material/OpenInNew';
import Visibility from '@mui/icons-material/Visibility';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Divider from '@mui/material/Divider';
import Grid from '@mui/material/Grid';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { StatusChip } from '../../components/status/StatusChip';
import { PERMISSIONS, usePermissions } from '../auth/usePermissions';
import { VoidCodesDialog } from '../vouchers/VoidCodesDialog';
import { VoucherCodesModal } from '../vouchers/VoucherCodesModal';
import { EmailTemplateEditor } from './EmailTemplateEditor';
import { PackageLinksDialog } from './PackageLinksDialog';
import { PoolForecastLine } from './PoolForecastLine';
import { type PoolForecast, type Product } from './productsApi';
import { VoucherUpload } from './VoucherUpload';
import { usePoolControllerForecastQuery, useProductControllerListQuery } from '../../api';

function Count({ label, value }: { label: string; value: number }) {
  return (
    <Stack>
      <Typography variant="h3" component="p" data-testid={`count-${label.toLowerCase()}`}>
        {value.toLocaleString('en-US')}
      </Typography>
      <Typography variant="caption" sx={{ color: 'text.secondary' }}>
        {label}
      </Typography>
    </Stack>
  );
}

/** docs/product.md §10.7: a product whose name contains "mac" is a Mac product (the three packages, §12.7). */
const isMac = (product: Product) => /mac/i.test(product.name);

function ProductCard({ product, forecast }: { product: Product; forecast?: PoolForecast }) {
  const { can } = usePermissions();
  const [dialog, setDialog] = useState<'codes' | 'template' | 'links' | 'void' | null>(null);
  const active = product.status === 'active';
  const mac = isMac(product);
  return (
    <Card
      variant="outlined"
      sx={{ height: '100%', display: 'flex', flexDirection: 'column' }}
      aria-label={product.name}
      component="section"
    >
      <CardContent sx={{ flex: 1 }}>
        <Stack spacing={1.5}>
          <Typography variant="h3" component="h3">
            {product.name}
          </Typography>
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
            <StatusChip
              color={active ? 'success' : 'default'}
              label={active ? 'Active' : product.status.charAt(0).toUpperCase() + product.status.slice(1)}
            />
            {product.isLicenseManaged && (
              <Chip size="small" color="secondary" variant="outlined" label="License Managed" />
            )}
          </Stack>
          <Stack direction="row" spacing={4}>
            <Count label="Unredeemed" value={product.unredeemedCount} />
            <Count label="Redeemed" value={product.redeemedCount} />
            <Count label="Void" value={product.voidCount ?? 0} />
          </Stack>
          {product.isLicenseManaged && forecast && <PoolForecastLine forecast={forecast} />}
          {mac && !product.isLicenseManaged && !product.activationLink && (
            <Alert severity="warning" variant="outlined">
              No licence package link: Mac customers cannot activate. Set it in Package Links.
            </Alert>
          )}
          {can(PERMISSIONS.vouchersUpload) && (
            <>
              <Divider />
              <VoucherUpload product={product} />
            </>
          )}
        </Stack>
      </CardContent>
      <CardActions sx={{ px: 2, pb: 2, flexWrap: 'wrap', gap: 1 }}>
        {can(PERMISSIONS.vouchersView) && (
          <>
            <Button variant="outlined" startIcon={<Visibility />} onClick={() => setDialog('codes')}>
              View Voucher Codes
            </Button>
            <Tooltip title="Open the voucher codes page">
              <IconButton
                component={RouterLink}
                to={`/admin/voucher-codes/${product.id}`}
                aria-label={`Voucher codes page of ${product.name}`}
              >
                <OpenInNew />
              </IconButton>
            </Tooltip>
          </>
        )}
        {can(PERMISSIONS.productsEdit) && (
          <Button startIcon={<Email />} onClick={() => setDialog('template')}>
            Email Template
          </Button>
        )}
        {mac && can(PERMISSIONS.productsEdit) && (
          <Button startIcon={<LinkIcon />} onClick={() => setDialog('links')}>
            Package Links
          </Button>
        )}
        {can(PERMISSIONS.vouchersVoid) && (
          <Button color="error" startIcon={<Block />} onClick={() => setDialog('void')}>
            Void Codes
          </Button>
        )}
      </CardActions>
      {dialog === 'codes' && can(PERMISSIONS.vouchersView) && (
        <VoucherCodesModal product={product} open onClose={() => setDialog(null)} />
      )}
      {dialog === 'template' && <EmailTemplateEditor product={product} open onClose={() => setDialog(null)} />}
      {dialog === 'links' && <PackageLinksDialog product={product} open onClose={() => setDialog(null)} />}
      {dialog === 'void' && can(PERMISSIONS.vouchersVoid) && (
        <VoidCodesDialog product={product} open onClose={() => setDialog(null)} />
      )}
    </Card>
  );
}

/** docs/product.md §3.4 Products tab: a card per product. */
export function ProductsTab() {
  const { data: products, isLoading, isError } = useProductControllerListQuery();
  const { data: forecasts } = usePoolControllerForecastQuery();
  if (isLoading) return <CircularProgress aria-label="Loading products" />;
  if (isError) return <Alert severity="error">Products could not be loaded.</Alert>;
  if (!products?.length) return <Typography sx={{ color: 'text.secondary' }}>No products yet.</Typography>;
  return (
    <Grid container spacing={2}>
      {products.map((product) => (
        <Grid key={product.id} size={{ xs: 12, md: 6, lg: 4 }}>
          <ProductCard product={product} forecast={forecasts?.find((f) => f.productId === product.id)} />
        </Grid>
      ))}
    </Grid>
  );
}
