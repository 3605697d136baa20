/**
 * The socket.io events of the admin consoles' real-time channel, as socket.io's typed event maps: the gateway and
 * RealtimeService send through `Server<ClientToServerEvents, ServerToClientEvents>`, and the web app's client
 * (frontend/src/features/admin/realtime.tsx) imports these types. Types only: nothing here runs, so the web app's
 * type-only import pulls no backend code.
 */

/**
 * docs/product.md §4.9 real-time event types, `ipBlocked` (an address blocked for guessing codes, docs/product.md
 * §18.2), `emailStatus` (an order e-mail was sent or finally failed: the consoles' lists are not polled) and
 * `customerErased` (a customer erased their data in the licence centre).
 */
export type DataUpdateType =
  | 'licenseAssignment'
  | 'emailResend'
  | 'redemptionDeleted'
  | 'productUpdate'
  | 'voucherUpdate'
  | 'ipBlocked'
  | 'emailStatus'
  | 'customerErased'
  // The review queue changed: a redemption held, approved or refused (docs/product.md §25.4).
  | 'reviewUpdate';

/** A `dataUpdate` event: what changed and a line for people. */
export interface DataUpdate {
  type: DataUpdateType;
  message: string;
}

/** What the server sends a console's socket. */
export interface ServerToClientEvents {
  dataUpdate: (event: DataUpdate) => void;
  /** The socket joined the admins' room. */
  'admin-joined': (answer: { success: true }) => void;
  /** The join was refused, or the session ended; the socket is disconnected right after. */
  'join-error': (error: { message: string }) => void;
}

/** What a console's socket sends the server: its access token, to join the admins' room. */
export interface ClientToServerEvents {
  'join-admin': (body: { token: string | null }) => void;
}
