import type { Server } from 'socket.io';
import { Clock } from '../../common/clock';
import { ADMINS_ROOM, RealtimeService } from './realtime.service';

/**
 * The throttle's window on a fake clock (jest's modern timers move the Clock's `new Date()` and setTimeout together): what goes out
 * when, exactly. test/realtime.e2e-spec.ts checks the same path end to end (what is broadcast reaches the admins).
 */
describe('RealtimeService.emitThrottled', () => {
  let service: RealtimeService;
  let sent: Array<{ at: number; type: string; message: string }>;

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    sent = [];
    const server = {
      to: (room: string) => ({
        emit: (_event: string, { type, message }: { type: string; message: string }) => {
          expect(room).toBe(ADMINS_ROOM);
          sent.push({ at: Date.now() - 1_000_000, type, message });
        },
      }),
    } as unknown as Server;
    service = new RealtimeService(new Clock());
    service.attach(server);
  });
  afterEach(() => jest.useRealTimers());

  it('sends the first at once, folds the rest of the window into one trailing event with the latest message', () => {
    service.emitThrottled('voucherUpdate', 'A');
    jest.advanceTimersByTime(100);
    service.emitThrottled('voucherUpdate', 'B');
    jest.advanceTimersByTime(400);
    service.emitThrottled('voucherUpdate', 'C');
    expect(sent).toEqual([{ at: 0, type: 'voucherUpdate', message: 'A' }]);
    jest.advanceTimersByTime(499);
    expect(sent).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([
      { at: 0, type: 'voucherUpdate', message: 'A' },
      { at: 1000, type: 'voucherUpdate', message: 'C' },
    ]);
  });

  it('keeps a window after the trailing event too; a quiet window later sends at once again', () => {
    service.emitThrottled('voucherUpdate', 'A');
    service.emitThrottled('voucherUpdate', 'B');
    jest.advanceTimersByTime(1200);
    service.emitThrottled('voucherUpdate', 'C'); // 200 ms after the trailing B: waits until 2000
    jest.advanceTimersByTime(800);
    jest.advanceTimersByTime(5000);
    service.emitThrottled('voucherUpdate', 'D');
    expect(sent.map(({ at, message }) => [at, message])).toEqual([
      [0, 'A'],
      [1000, 'B'],
      [2000, 'C'],
      [7000, 'D'],
    ]);
  });

  it('throttles each type on its own', () => {
    service.emitThrottled('voucherUpdate', 'V1');
    service.emitThrottled('productUpdate', 'P1');
    service.emitThrottled('voucherUpdate', 'V2');
    jest.advanceTimersByTime(1000);
    expect(sent.map(({ at, type, message }) => [at, type, message])).toEqual([
      [0, 'voucherUpdate', 'V1'],
      [0, 'productUpdate', 'P1'],
      [1000, 'voucherUpdate', 'V2'],
    ]);
  });
});
