import { screen, waitFor, within } from '@testing-library/react';
import { routes } from '../../app/router';
import { fakeServer, PUBLIC_CONFIG } from '../../test/fakeServer';
import { loadPublicPages, renderRoutes } from '../../test/renderWithProviders';

let server: ReturnType<typeof fakeServer>;
beforeEach(() => {
  server = fakeServer({ 'GET /api/public-config': () => ({ status: 200, body: PUBLIC_CONFIG }) });
});
// The pages are loaded on demand: compiled once here, not within a test's wait (loadPublicPages).
beforeAll(loadPublicPages);

afterEach(() => server.restore());

describe('public routes', () => {
  it('privacy policy: effective August 15, 2025, retention periods, support contact', async () => {
    renderRoutes(routes, '/privacy-policy');
    expect(await screen.findByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeInTheDocument();
    expect(screen.getByText('Effective date: August 15, 2025')).toBeInTheDocument();
    const retention = screen.getByRole('region', { name: /How long we keep it/ });
    expect(retention).toHaveTextContent('Redemption records');
    expect(retention).toHaveTextContent('7 years');
    expect(retention).toHaveTextContent('E-mail logs: 2 years');
    expect(retention).toHaveTextContent('1 year');
    expect(screen.getByRole('region', { name: /E-mail delivery/ })).toHaveTextContent('two e-mail providers');
    expect(screen.getByRole('region', { name: /Regional restrictions/ })).toHaveTextContent('Germany');
    expect((await screen.findAllByRole('link', { name: 'help@licences.test' })).length).toBeGreaterThan(0);
  });

  it('terms: once per code, one key per e-mail per product, 18 or parental consent', async () => {
    renderRoutes(routes, '/terms-conditions');
    expect(await screen.findByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeInTheDocument();
    expect(screen.getByText('Effective date: August 15, 2025')).toBeInTheDocument();
    expect(screen.getByRole('region', { name: /Voucher codes/ })).toHaveTextContent(
      'Each voucher code can be redeemed once',
    );
    expect(screen.getByRole('region', { name: /One licence per customer/ })).toHaveTextContent(
      'One licence key is issued per customer e-mail address per product',
    );
    expect(screen.getByRole('region', { name: /Eligibility/ })).toHaveTextContent(
      'at least 18 years old, or have the consent of a parent or guardian',
    );
    const footer = screen.getByRole('contentinfo');
    expect(await within(footer).findByText(PUBLIC_CONFIG.companyAddress)).toBeInTheDocument();
  });

  it('region page texts', async () => {
    renderRoutes(routes, '/geo-blocked');
    expect(await screen.findByRole('heading', { name: 'Access Restricted' })).toBeInTheDocument();
    expect(
      screen.getByText(
        "We're sorry, but this service is currently not available in your region due to regulatory requirements.",
      ),
    ).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'help@licences.test' })).toHaveAttribute(
      'href',
      'mailto:help@licences.test',
    );
  });

  it.each([
    [
      '/privacy-policy',
      'Privacy Policy',
      'Which personal data we process when you redeem a voucher code, why, and for how long.',
    ],
    [
      '/terms-conditions',
      'Terms & Conditions',
      'The terms that apply to every redemption of an office-suite voucher code on this service.',
    ],
    ['/geo-blocked', 'Access Restricted', 'Voucher redemption is not available in your region.'],
    [
      '/no/such/page',
      '404 Page Not Found',
      'This page does not exist. Redeem your office-suite voucher code on the home page.',
    ],
  ])('%s has its own title and meta description', async (path, title, description) => {
    renderRoutes(routes, path);
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe(`${title} | ${PUBLIC_CONFIG.companyName}`));
    expect(document.head.querySelector('meta[name="description"]')).toHaveAttribute('content', description);
  });

  it('unknown paths show the 404 page with a developer hint', async () => {
    renderRoutes(routes, '/no/such/page');
    expect(await screen.findByRole('heading', { name: '404 Page Not Found' })).toBeInTheDocument();
    expect(screen.getByText(/No route matches "\/no\/such\/page"/)).toBeInTheDocument();
  });
});
