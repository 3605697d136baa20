import Link from '@mui/material/Link';
import { Link as RouterLink } from 'react-router-dom';
import { usePublicConfig } from '../site/usePublicConfig';
import { PolicyPage, type PolicySection } from './PolicyPage';

/** `/terms-conditions`, effective August 15, 2025 (docs/product.md §1.4). */
export function TermsPage() {
  const { companyName, companyAddress, supportEmail } = usePublicConfig();
  const mail = supportEmail && <Link href={`mailto:${supportEmail}`}>{supportEmail}</Link>;
  const sections: PolicySection[] = [
    {
      heading: 'The service',
      body: (
        <p>
          {companyName} lets customers who bought an office-suite 2024 deal through a coupon marketplace redeem their
          voucher code for a perpetual licence: Professional Plus (Windows), Home & Business (Mac) or Home & Business
          (Windows).
        </p>
      ),
    },
    {
      heading: 'Voucher codes',
      body: (
        <ul>
          <li>Each voucher code can be redeemed once. A redeemed code cannot be redeemed again or exchanged.</li>
          <li>A code is valid only for the product it was sold for.</li>
        </ul>
      ),
    },
    {
      heading: 'One licence per customer',
      body: (
        <p>
          One licence key is issued per customer e-mail address per product. A second redemption of the same product for
          the same e-mail address is refused and the voucher code stays unused.
        </p>
      ),
    },
    {
      heading: 'Eligibility',
      body: (
        <p>
          You must be at least 18 years old, or have the consent of a parent or guardian, to redeem a voucher code. The
          service is currently not available in Germany.
        </p>
      ),
    },
    {
      heading: 'Delivery',
      body: (
        <ul>
          <li>
            Licences are assigned automatically. Windows products show the licence key and download link right after
            redemption; Mac products are delivered as a set of installation packages and activate without manual key
            entry.
          </li>
          <li>An e-mail with your order details follows within 2-3 hours. Please check your spam or junk folder.</li>
          <li>
            Some redemptions are processed manually; your licence key and download link then arrive within 2-3 hours.
          </li>
          <li>If nothing arrives within that time, contact support at {mail}.</li>
        </ul>
      ),
    },
    {
      heading: 'Licence and use',
      body: (
        <p>
          Licences are perpetual and subject to the software vendor's licence terms. Keep your product key secure: you
          need it to install, activate and reinstall. Sharing, reselling or publishing a key is not permitted.
        </p>
      ),
    },
    {
      heading: 'Support',
      body: <p>Support is offered by e-mail at {mail}, usually within 2-4 hours during business hours.</p>,
    },
    {
      heading: 'Liability',
      body: (
        <p>
          We are responsible for delivering a valid licence for each valid voucher code. To the extent permitted by law,
          we are not liable for indirect losses, and our liability is limited to the price paid for the voucher.
        </p>
      ),
    },
    {
      heading: 'Personal data',
      body: (
        <p>
          How we handle your personal data, and how long we keep it, is described in our{' '}
          <Link component={RouterLink} to="/privacy-policy">
            Privacy Policy
          </Link>
          . In short: redemption records are kept for 7 years, e-mail logs for 2 years and security logs for 1 year.
        </p>
      ),
    },
    {
      heading: 'Contact and changes',
      body: (
        <p>
          {companyName}, {companyAddress}. E-mail: {mail}. We may update these terms; the version in force is the one
          published on this page with its effective date.
        </p>
      ),
    },
  ];
  return (
    <PolicyPage
      title="Terms & Conditions"
      description="The terms that apply to every redemption of an office-suite voucher code on this service."
      intro={
        <p>
          These terms apply to every redemption of a voucher code on this service. By redeeming a code you accept them.
        </p>
      }
      sections={sections}
    />
  );
}

export default TermsPage;
