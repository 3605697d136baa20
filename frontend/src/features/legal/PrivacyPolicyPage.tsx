import Link from '@mui/material/Link';
import { Link as RouterLink } from 'react-router-dom';
import { usePublicConfig } from '../site/usePublicConfig';
import { PolicyPage, type PolicySection } from './PolicyPage';

/** `/privacy-policy`, effective August 15, 2025 (docs/product.md §1.4). */
export function PrivacyPolicyPage() {
  const { companyName, companyAddress, supportEmail } = usePublicConfig();
  const mail = supportEmail && <Link href={`mailto:${supportEmail}`}>{supportEmail}</Link>;
  const sections: PolicySection[] = [
    {
      heading: 'Who we are',
      body: (
        <p>
          {companyName} operates this voucher redemption service for office-suite 2024 licences bought through a coupon
          marketplace. {companyName} is the controller of the personal data described here. Postal address:{' '}
          {companyAddress}. Contact: {mail}.
        </p>
      ),
    },
    {
      heading: 'What we collect',
      body: (
        <ul>
          <li>Your first and last name, e-mail address and, if you give it, your phone number.</li>
          <li>
            The voucher code you redeem, the product it belongs to and the licence key or download link we deliver.
          </li>
          <li>
            Technical data sent with each request: your IP address, the country derived from it, your browser's user
            agent and the time the form was loaded and submitted.
          </li>
          <li>Records of the e-mails we send you (address, subject, time and delivery status).</li>
        </ul>
      ),
    },
    {
      heading: 'Why we use it',
      body: (
        <ul>
          <li>To check and redeem your voucher code and assign your licence (performance of our contract with you).</li>
          <li>To send your order details, licence key and download link by e-mail.</li>
          <li>
            To keep the service safe: detecting automated submissions, limiting repeated attempts, and applying regional
            restrictions where regulation requires it (legitimate interests and legal obligations).
          </li>
          <li>To answer your support requests and keep records required by law.</li>
        </ul>
      ),
    },
    {
      heading: 'E-mail delivery',
      body: (
        <p>
          We use a dual e-mail system with two e-mail providers: if the first provider cannot deliver a message, the
          second one sends it. Both providers process your e-mail address and the message contents only to deliver our
          e-mails.
        </p>
      ),
    },
    {
      heading: 'Regional restrictions',
      body: (
        <p>
          The service is currently not available in Germany. We derive your country from your IP address at the time of
          redemption; requests from a restricted region are refused and no personal data from the form is stored.
        </p>
      ),
    },
    {
      heading: 'How long we keep it',
      body: (
        <ul>
          <li>Redemption records (your details, the voucher code and the licence delivered): 7 years.</li>
          <li>E-mail logs: 2 years.</li>
          <li>Security logs (such as IP addresses of failed or blocked attempts): 1 year.</li>
        </ul>
      ),
    },
    {
      heading: 'Who we share it with',
      body: (
        <p>
          We do not sell your data. We share it only with the service providers that host this service and deliver our
          e-mails, under contracts that oblige them to protect it, and with authorities where the law requires us to.
        </p>
      ),
    },
    {
      heading: 'Security',
      body: (
        <p>
          Data is transmitted over encrypted connections, access to customer records is limited to authorised staff with
          individual accounts (optionally protected by two-factor authentication), and staff actions are logged.
        </p>
      ),
    },
    {
      heading: 'Your rights',
      body: (
        <p>
          You may ask for a copy of your data, its correction or deletion, or object to or restrict its use, within the
          limits of the retention periods above. Write to {mail}; we usually answer within 2-4 hours during business
          hours.
        </p>
      ),
    },
    {
      heading: 'Children',
      body: (
        <p>
          The service is meant for people aged 18 or over. Younger customers may only use it with the consent of a
          parent or guardian (see our{' '}
          <Link component={RouterLink} to="/terms-conditions">
            Terms & Conditions
          </Link>
          ).
        </p>
      ),
    },
    {
      heading: 'Changes to this policy',
      body: <p>We will publish any change on this page with a new effective date.</p>,
    },
  ];
  return (
    <PolicyPage
      title="Privacy Policy"
      description="Which personal data we process when you redeem a voucher code, why, and for how long."
      intro={
        <p>
          This policy explains which personal data we process when you redeem a voucher code, why, and for how long.
        </p>
      }
      sections={sections}
    />
  );
}

export default PrivacyPolicyPage;
