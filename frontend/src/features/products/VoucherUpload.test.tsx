import { act, fireEvent, screen } from '@testing-library/react';
import { Toaster } from '../../components/toast';
import { resetToasts } from '../../components/toast/toastStore';
import { renderWithProviders } from '../../test/renderWithProviders';
import { PRODUCT } from '../admin/adminTesting';
import { VoucherUpload } from './VoucherUpload';

afterEach(() => act(() => resetToasts()));

function open() {
  return renderWithProviders(
    <>
      <VoucherUpload product={PRODUCT} />
      <Toaster />
    </>,
  );
}

const drop = (file: File) =>
  fireEvent.drop(screen.getByTestId(`dropzone-${PRODUCT.id}`), { dataTransfer: { files: [file] } });

describe('voucher upload control', () => {
  it('takes a CSV or TXT file dropped on it and enables "Upload Codes"', () => {
    open();
    expect(screen.getByRole('button', { name: 'Upload Codes' })).toBeDisabled();
    drop(new File(['CODE-1\nCODE-2\n'], 'codes.TXT', { type: 'text/plain' }));
    expect(screen.getByText('codes.TXT')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Upload Codes' })).toBeEnabled();
  });

  it('takes a file chosen by click', () => {
    open();
    fireEvent.change(screen.getByLabelText(`Voucher file for ${PRODUCT.name}`), {
      target: { files: [new File(['code\nA-1'], 'list.csv', { type: 'text/csv' })] },
    });
    expect(screen.getByText('list.csv')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Upload Codes' })).toBeEnabled();
  });

  it('refuses any other file type with "Upload Failed"', () => {
    open();
    drop(new File(['x'], 'codes.xlsx'));
    expect(screen.getByText('Upload Failed')).toBeInTheDocument();
    expect(screen.getByText('Only .csv and .txt files are accepted.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Upload Codes' })).toBeDisabled();
  });
});
