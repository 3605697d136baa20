import { screen } from '@testing-library/react';
import { renderWithProviders } from '../../test/renderWithProviders';
import { PoolForecastLine } from './PoolForecastLine';
import type { PoolForecast } from './productsApi';

const forecast = (overrides: Partial<PoolForecast> = {}): PoolForecast => ({
  productId: '00000000-0000-4000-8000-000000000001',
  productName: 'Office 2024 Professional Plus (Windows)',
  availableActivations: 45,
  redeemedLast7Days: 14,
  perDay: 2,
  daysLeft: 22,
  low: false,
  lowReason: null,
  waitingCustomers: 0,
  ...overrides,
});

describe('the product card’s pool line', () => {
  it('a healthy pool: days and activations only, no reason and nobody waiting', () => {
    renderWithProviders(<PoolForecastLine forecast={forecast()} />);
    const line = screen.getByTestId('pool-forecast');
    expect(line).toHaveTextContent(/^≈ 22 days of keys left45 activations available in the key pool$/);
  });

  it('a low pool says which rule makes it low, and how many customers wait for a key', () => {
    renderWithProviders(
      <PoolForecastLine
        forecast={forecast({
          availableActivations: 0,
          daysLeft: 0,
          low: true,
          lowReason: 'fewer than 50 activations available (POOL_ALERT_MIN)',
          waitingCustomers: 3,
        })}
      />,
    );
    const reason = screen.getByText('Low: fewer than 50 activations available (POOL_ALERT_MIN)');
    expect(reason).toHaveStyle({ color: '#b45309' });
    expect(screen.getByText('3 customers waiting for a key')).toHaveStyle({ color: '#b45309' });
  });

  it('one customer waiting is told in the singular', () => {
    renderWithProviders(<PoolForecastLine forecast={forecast({ waitingCustomers: 1 })} />);
    expect(screen.getByTestId('pool-forecast')).toHaveTextContent('1 customer waiting for a key');
  });
});
