/** Which cap refused a stream, and its value. */
export interface StreamRefusal {
  scope: 'credential' | 'organization';
  limit: number;
}

/**
 * The open subscription streams of this instance, counted per credential and per organization.
 * Each stream holds a connection (counted against MAX_CONNECTIONS) and a listener on its
 * organization's changes until it ends, so one credential, or one organization's members
 * together, may hold only so many. The counts are this process's: behind a load balancer each
 * instance admits up to the caps (docs/limits.md says so). A count in Redis would outlive a crashed
 * instance's streams, and a stream's connection is pinned to one instance anyway.
 */
export class StreamSlots {
  private readonly byCredential = new Map<string, number>();
  private readonly byOrganization = new Map<string, number>();
  private readonly open = new Set<() => void>();

  constructor(private readonly limits: { perCredential: number; perOrganization: number }) {}

  /**
   * A slot for one more stream of this credential in this organization: its release (idempotent),
   * or which cap is full. `end` is called if the app closes while the stream is still open.
   */
  take(credential: string, orgId: string, end: () => void): { release: () => void } | StreamRefusal {
    const ofCredential = this.byCredential.get(credential) ?? 0;
    if (ofCredential >= this.limits.perCredential) return { scope: 'credential', limit: this.limits.perCredential };
    const ofOrganization = this.byOrganization.get(orgId) ?? 0;
    if (ofOrganization >= this.limits.perOrganization) {
      return { scope: 'organization', limit: this.limits.perOrganization };
    }
    this.byCredential.set(credential, ofCredential + 1);
    this.byOrganization.set(orgId, ofOrganization + 1);
    this.open.add(end);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.open.delete(end);
        decrement(this.byCredential, credential);
        decrement(this.byOrganization, orgId);
      },
    };
  }

  /** Ends every open stream (the app is closing). */
  endAll(): void {
    for (const end of [...this.open]) end();
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 0) - 1;
  // An empty entry is dropped, so the maps hold only credentials and organizations with streams open.
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
