// Summarises a V8 .cpuprofile (node --cpu-prof): self time per function and per package.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  file: string;
  total_ms: number;
  /** Share of non-idle time. */
  top_functions: { function: string; where: string; self_ms: number; percent: number }[];
  by_package: { package: string; self_ms: number; percent: number }[];
  /** The load the profile was taken under. */
  load?: { rps: number; p50_ms: number };
}

/** Only samples in [end - fromEndSeconds, end - toEndSeconds] (e.g. the load, not start-up). */
export interface ProfileWindow {
  fromEndSeconds: number;
  toEndSeconds: number;
}

function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('wasm://')) return 'wasm';
  if (url.startsWith('node:')) return 'node: (core)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const src = /\/(src|bench)\/(.*)$/.exec(url);
  if (src) {
    return `${src[1]}/${src[2]!.split('/')[0]}`;
  }
  return url;
}

function shortWhere(url: string, line: number): string {
  if (!url) return '';
  const nm = url.lastIndexOf('/node_modules/');
  const tail = nm >= 0 ? url.slice(nm + '/node_modules/'.length) : url.replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
  return `${tail}:${line + 1}`;
}

export function summariseProfile(file: string, window?: ProfileWindow, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  if (profile.samples && profile.timeDeltas) {
    // Sample i is taken at startTime + sum(timeDeltas[0..i]) and stands for the time until the next one.
    const from = window ? profile.endTime - window.fromEndSeconds * 1e6 : -Infinity;
    const to = window ? profile.endTime - window.toEndSeconds * 1e6 : Infinity;
    let at = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      at += profile.timeDeltas[i]!;
      if (at < from || at > to) continue;
      const next = profile.timeDeltas[i + 1] ?? 0;
      self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + Math.max(0, next));
    }
  } else {
    const interval =
      (profile.endTime - profile.startTime) /
      Math.max(
        1,
        profile.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0),
      );
    for (const n of profile.nodes) self.set(n.id, (n.hitCount ?? 0) * interval);
  }
  const functions = new Map<string, { function: string; where: string; us: number }>();
  const packages = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    busy += us;
    const name = functionName || '(anonymous)';
    const key = `${name}@${url}:${lineNumber}`;
    const entry = functions.get(key) ?? { function: name, where: shortWhere(url, lineNumber), us: 0 };
    entry.us += us;
    functions.set(key, entry);
    const pkg = packageOf(url, name);
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
  }
  const pct = (us: number) => +((100 * us) / Math.max(1, busy)).toFixed(1);
  return {
    file,
    total_ms: Math.round(busy / 1000),
    top_functions: [...functions.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((f) => ({ function: f.function, where: f.where, self_ms: Math.round(f.us / 1000), percent: pct(f.us) })),
    by_package: [...packages.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([pkg, us]) => ({ package: pkg, self_ms: Math.round(us / 1000), percent: pct(us) })),
  };
}
