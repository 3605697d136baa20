import { screen } from '@testing-library/react';
import type { CustomerLicenceResponse } from '../../api';
import { renderWithProviders } from '../../test/renderWithProviders';
import { LicenceCard } from './LicenceCard';

const LICENCE: CustomerLicenceResponse = {
  redemptionId: '3f1c2a56-3b0e-4c4e-9d1b-2f0e9a7c5d11',
  productName: 'Office 2024 Professional Plus (Windows)',
  voucherCode: 'LC-2024-CODE',
  redeemedAt: '2026-11-30T10:00:00.000Z',
  licenseKey: 'ABCDE-12345-FGHIJ-67890-KLMNO',
  downloadLink: 'https://downloads.example.com/office2024.exe',
  activationLink: null,
  removalToolLink: null,
  isManualProcessing: false,
  heldForReview: false,
  refundedAt: null,
  emailStatus: 'sent',
};

describe('a licence in the licence centre (docs/product.md §19.3, §21)', () => {
  it('shows the key, the download and "Send the order e-mail again"', () => {
    renderWithProviders(<LicenceCard licence={LICENCE} onExpired={() => undefined} />);
    expect(screen.getByText(LICENCE.licenseKey!)).toBeVisible();
    expect(screen.getByRole('link', { name: `Download ${LICENCE.productName}` })).toHaveAttribute(
      'href',
      LICENCE.downloadLink,
    );
    expect(screen.getByRole('button', { name: 'Send the order e-mail again' })).toBeEnabled();
    expect(screen.queryByText(/^Refunded on/)).not.toBeInTheDocument();
  });

  it('refunded: says so with the date, and offers no key, no download and no resend', () => {
    const refunded = { ...LICENCE, licenseKey: null, downloadLink: '', refundedAt: '2026-12-01T09:30:00.000Z' };
    renderWithProviders(<LicenceCard licence={refunded} onExpired={() => undefined} />);
    const date = new Date(refunded.refundedAt).toLocaleDateString(undefined, {
      year: 'numeric',
      month: 'long',
      day: 'numeric',
    });
    expect(screen.getByRole('alert')).toHaveTextContent(
      `Refunded on ${date}: this licence is no longer available here. Please contact support with any questions.`,
    );
    expect(screen.getByText(LICENCE.voucherCode)).toBeVisible();
    expect(screen.queryByRole('link', { name: /^Download/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Send the order e-mail again' })).not.toBeInTheDocument();
  });
});
