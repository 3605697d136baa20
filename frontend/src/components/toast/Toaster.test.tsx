import { act, fireEvent, render, screen } from '@testing-library/react';
import { Toaster } from './Toaster';
import { resetToasts, toast, TOAST_DURATION_MS } from './toastStore';

describe('Toaster', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    act(() => resetToasts());
    jest.useRealTimers();
  });

  it('shows one toast at a time: a new toast replaces the one on screen', () => {
    render(<Toaster />);
    act(() => void toast({ title: 'First', description: 'one' }));
    act(() => void toast({ title: 'Second', description: 'two' }));
    expect(screen.queryByText('First')).not.toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Secondtwo');
  });

  it('closes after 5000 ms by default', () => {
    render(<Toaster />);
    act(() => void toast({ title: 'Saved' }));
    act(() => jest.advanceTimersByTime(TOAST_DURATION_MS - 1));
    expect(screen.getByText('Saved')).toBeInTheDocument();
    act(() => jest.advanceTimersByTime(1));
    expect(screen.queryByText('Saved')).not.toBeInTheDocument();
  });

  it('announces destructive toasts as alerts', () => {
    render(<Toaster />);
    act(
      () =>
        void toast({
          title: 'Copy failed',
          description: 'Please manually select and copy the text',
          variant: 'destructive',
        }),
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Copy failed');
  });

  it('F8 moves focus to the notification region', () => {
    render(<Toaster />);
    fireEvent.keyDown(document, { key: 'F8' });
    expect(screen.getByRole('region', { name: 'Notifications (F8)' })).toHaveFocus();
  });

  it('a swipe right past 50 px dismisses; a shorter one does not', () => {
    render(<Toaster />);
    act(() => void toast({ title: 'Swipe me' }));
    const card = screen.getByRole('status');
    fireEvent.pointerDown(card, { clientX: 100, pointerId: 1 });
    fireEvent.pointerMove(card, { clientX: 140, pointerId: 1 });
    fireEvent.pointerUp(card, { clientX: 140, pointerId: 1 });
    expect(screen.getByText('Swipe me')).toBeInTheDocument();
    fireEvent.pointerDown(card, { clientX: 100, pointerId: 1 });
    fireEvent.pointerMove(card, { clientX: 160, pointerId: 1 });
    fireEvent.pointerUp(card, { clientX: 160, pointerId: 1 });
    expect(screen.queryByText('Swipe me')).not.toBeInTheDocument();
  });

  it('the close button dismisses', () => {
    render(<Toaster />);
    act(() => void toast({ title: 'Close me' }));
    fireEvent.click(screen.getByRole('button', { name: 'Close notification' }));
    expect(screen.queryByText('Close me')).not.toBeInTheDocument();
  });
});
