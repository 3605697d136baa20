/**
 * The audit rows a limit counts per client address group: failed sign-ins, which the login IP block counts
 * (BlockedIpService, AuditLog.countFailuresFrom). Only these rows keep `ip_group` (AuditService.record): any other
 * row keeps at most the address itself, which an erasure clears with the customer's user agent.
 */
export const FAILED_LOGIN_ACTIONS: readonly string[] = ['login.failure', 'login.locked', 'login.2fa-failure'];

/** Whether a row of this action and outcome is counted per address group (and so keeps its `ip_group`). */
export function countedPerAddressGroup(action: string, success: boolean): boolean {
  return !success && FAILED_LOGIN_ACTIONS.includes(action);
}
