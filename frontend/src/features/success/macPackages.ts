/**
 * docs/product.md §2.5 Mac success page: the three packages, in this order. The first two links go to the vendor's own
 * download service; the licence package comes with the e-mail and activates without a key.
 */
export interface MacPackage {
  /** Which package: its link in an order e-mail is `{{removal_tool_link}}`, `{{download_link}}`, `{{activation_link}}`. */
  id: 'removal-tool' | 'installer' | 'activation';
  name: string;
  description: string;
  file: string;
  size: string;
  version?: string;
  href?: string;
  note?: string;
}

export const MAC_PACKAGES: readonly MacPackage[] = [
  {
    id: 'removal-tool',
    name: 'Office Removal Tool',
    description: 'Removes earlier Office versions and licences from your Mac. Run it first.',
    file: '.pkg',
    size: '5.2 MB',
    version: '2.0',
    href: 'https://go.microsoft.com/fwlink/?linkid=849815',
  },
  {
    id: 'installer',
    name: 'Office 2024 Installer',
    description: 'The Mac installer of the office suite, from the vendor’s own download service.',
    file: 'Mac installer .pkg',
    size: '2.1 GB',
    version: '16.89.1',
    href: 'https://go.microsoft.com/fwlink/?linkid=2009112',
  },
  {
    id: 'activation',
    name: 'License Activation',
    description: 'The licence package: it activates the suite automatically, with no manual key entry.',
    file: 'Licence package .pkg',
    size: '12.4 MB',
    note: 'Sent with your order e-mail',
  },
];

export const MAC_REQUIREMENTS = [
  'macOS 13.0 or later',
  'Intel or Apple Silicon processor',
  '4 GB RAM (8 GB recommended)',
  '10 GB of free disk space',
];
