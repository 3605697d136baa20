import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Toaster } from '../../components/toast';
import { resetToasts } from '../../components/toast/toastStore';
import { renderWithProviders } from '../../test/renderWithProviders';
import { PRODUCT } from '../admin/adminTesting';
import { pastedCodes, VoidCodesDialog } from './VoidCodesDialog';

afterEach(() => act(() => resetToasts()));

function open() {
  return renderWithProviders(
    <>
      <VoidCodesDialog product={PRODUCT} open onClose={() => undefined} />
      <Toaster />
    </>,
  );
}

describe('Void Codes dialog', () => {
  it('counts pasted codes one a line, blank lines dropped', () => {
    expect(pastedCodes(' a-1 \r\n\nB-2\n  \n')).toEqual(['a-1', 'B-2']);
  });

  it('asks before voiding, naming how many pasted codes of which product', async () => {
    const { user } = open();
    const dialog = screen.getByRole('dialog', { name: `Void Codes - ${PRODUCT.name}` });
    expect(within(dialog).getByRole('button', { name: 'Void Codes' })).toBeDisabled();
    await user.click(within(dialog).getByRole('textbox', { name: 'Voucher codes (one per line)' }));
    await user.paste('CODE-1\n\nCODE-2\n');
    await user.click(within(dialog).getByRole('button', { name: 'Void Codes' }));
    const confirm = screen.getByRole('dialog', { name: 'Void Codes' });
    expect(confirm).toHaveTextContent(
      `Void 2 voucher codes of ${PRODUCT.name}? Void codes can never be redeemed. This action cannot be undone.`,
    );
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Void Codes' })).not.toBeInTheDocument());
  });

  it('takes a CSV or TXT file instead of the list, and refuses other file types', () => {
    open();
    const input = screen.getByLabelText(`Void file for ${PRODUCT.name}`);
    fireEvent.change(input, { target: { files: [new File(['x'], 'refunds.xlsx')] } });
    expect(screen.getByText('Void Failed')).toBeInTheDocument();
    fireEvent.change(input, { target: { files: [new File(['CODE-1\n'], 'refunds.csv', { type: 'text/csv' })] } });
    expect(screen.getByText('refunds.csv')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Voucher codes (one per line)' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Void Codes' })).toBeEnabled();
  });
});
