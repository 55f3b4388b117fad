import * as z from 'zod';
import type { Metric, ParsedOutput, PresetDef } from '../types.js';
import { MARK, section, wrapScript } from '../script.js';

// sysinfo: what the machine is (CPU, memory, kernel, OS, virtualisation, NICs). Read-only.
// Instance type, AZ and AMI come from the inventory, not from here.

const params = z.object({
  lshw: z.boolean().default(true).describe('Also run `lshw -short` when it is installed (needs root for full detail).'),
});

function body(p: z.infer<typeof params>): string {
  return `phase collect
sec() { printf '${MARK}begin %s\\n' "$1"; }
end() { printf '${MARK}end %s\\n' "$1"; }
sec uname; uname -srmo 2>/dev/null || uname -a; end uname
sec os; cat /etc/os-release 2>/dev/null; end os
sec nproc; nproc 2>/dev/null || getconf _NPROCESSORS_ONLN; end nproc
sec lscpu; lscpu 2>/dev/null; end lscpu
sec cpuinfo; awk 'NF==0 {exit} {print}' /proc/cpuinfo 2>/dev/null; end cpuinfo
sec meminfo; head -n 3 /proc/meminfo 2>/dev/null; end meminfo
sec virt; (systemd-detect-virt 2>/dev/null || echo unknown); end virt
sec dmi; for f in sys_vendor product_name; do printf '%s=%s\\n' "$f" "$(cat /sys/class/dmi/id/$f 2>/dev/null)"; done; end dmi
sec nic
for n in /sys/class/net/*; do
  i=\${n##*/}; [ "$i" = lo ] && continue
  drv=$(basename "$(readlink "$n/device/driver" 2>/dev/null)" 2>/dev/null)
  if command -v ethtool >/dev/null 2>&1; then d2=$(ethtool -i "$i" 2>/dev/null | awk -F': ' '$1=="driver"{print $2}'); [ -n "$d2" ] && drv=$d2; fi
  printf 'nic=%s driver=%s speed=%s mtu=%s\\n' "$i" "\${drv:-none}" "$(cat "$n/speed" 2>/dev/null || echo unknown)" "$(cat "$n/mtu" 2>/dev/null)"
  if command -v ethtool >/dev/null 2>&1; then
    ethtool -S "$i" 2>/dev/null | awk -v nic="$i" '/allowance_exceeded|linklocal_allowance/ {gsub(/^ +/,""); print "stat=" nic ":" $0}'
  fi
done
end nic
${p.lshw ? `if command -v lshw >/dev/null 2>&1; then sec lshw; timeout 30 $SUDO lshw -short 2>/dev/null; end lshw; else note "lshw not installed: skipped"; fi` : ''}
phase done`;
}

function kv(text: string, sep: RegExp): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of text.split('\n')) {
    const i = line.search(sep);
    if (i <= 0) continue;
    const k = line.slice(0, i).trim();
    if (!m.has(k)) m.set(k, line.slice(i).replace(sep, '').trim());
  }
  return m;
}

const between = (text: string, name: string): string => section(text, name) ?? '';

function parseSysinfo(stdout: string): ParsedOutput {
  const facts: Record<string, string> = {};
  const metrics: Metric[] = [];
  const notes: string[] = [];
  const lscpu = kv(between(stdout, 'lscpu'), /:\s*/);
  const cpuinfo = kv(between(stdout, 'cpuinfo'), /\s*:\s*/);
  const os = kv(between(stdout, 'os'), /=/);
  const num = (s: string | undefined) => (s !== undefined && /^\d+(\.\d+)?$/.test(s) ? Number(s) : undefined);

  const model = lscpu.get('Model name') ?? cpuinfo.get('model name');
  if (model) facts.cpu_model = model;
  if (lscpu.get('Architecture')) facts.arch = lscpu.get('Architecture')!;
  if (lscpu.get('Hypervisor vendor')) facts.hypervisor = lscpu.get('Hypervisor vendor')!;
  const vcpus = num(lscpu.get('CPU(s)')) ?? num(between(stdout, 'nproc').trim());
  if (vcpus !== undefined) metrics.push({ key: 'cpu.vcpus', label: 'vCPUs', value: vcpus, unit: 'count', better: 'higher' });
  const tpc = num(lscpu.get('Thread(s) per core'));
  if (tpc !== undefined) metrics.push({ key: 'cpu.threads_per_core', label: 'Threads per core', value: tpc, unit: 'count' });
  const cps = num(lscpu.get('Core(s) per socket') ?? lscpu.get('Core(s) per cluster'));
  if (cps !== undefined) metrics.push({ key: 'cpu.cores_per_socket', label: 'Cores per socket', value: cps, unit: 'count' });
  const sockets = num(lscpu.get('Socket(s)'));
  if (sockets !== undefined) metrics.push({ key: 'cpu.sockets', label: 'Sockets', value: sockets, unit: 'count' });
  const mhz = num(lscpu.get('CPU max MHz')) ?? num(lscpu.get('CPU MHz')) ?? num(cpuinfo.get('cpu MHz'));
  if (mhz !== undefined) metrics.push({ key: 'cpu.mhz', label: 'CPU MHz (max or current)', value: mhz, unit: 'MHz', better: 'higher' });
  const bogo = num(lscpu.get('BogoMIPS') ?? cpuinfo.get('bogomips'));
  if (bogo !== undefined) metrics.push({ key: 'cpu.bogomips', label: 'BogoMIPS', value: bogo, unit: 'BogoMIPS' });
  for (const k of ['L1d cache', 'L2 cache', 'L3 cache']) if (lscpu.get(k)) facts[k.replace(' ', '_').toLowerCase()] = lscpu.get(k)!;
  if (cpuinfo.get('flags')) facts.cpu_flags_count = String(cpuinfo.get('flags')!.split(/\s+/).length);

  const mem = /MemTotal:\s+(\d+)\s+kB/.exec(between(stdout, 'meminfo'));
  if (mem) metrics.push({ key: 'mem.total', label: 'Memory', value: Math.round((Number(mem[1]) / 1024 / 1024) * 100) / 100, unit: 'GiB', better: 'higher' });
  const uname = between(stdout, 'uname').trim();
  if (uname) facts.kernel = uname;
  const pretty = os.get('PRETTY_NAME');
  if (pretty) facts.os = pretty.replace(/^"|"$/g, '');
  const virt = between(stdout, 'virt').trim();
  if (virt) facts.virtualization = virt;
  for (const line of between(stdout, 'dmi').split('\n')) {
    const [k, v] = line.split('=', 2);
    if (k && v) facts[`dmi_${k}`] = v;
  }
  for (const line of between(stdout, 'nic').split('\n')) {
    const m = /^nic=(\S+) driver=(\S+) speed=(\S+) mtu=(\S*)/.exec(line);
    if (m) {
      facts[`nic_${m[1]}`] = `driver ${m[2]}, speed ${m[3] === '-1' || m[3] === 'unknown' ? 'unknown' : `${m[3]} Mb/s`}, mtu ${m[4]}`;
      continue;
    }
    const s = /^stat=([^:]+):(\w+):\s*(\d+)/.exec(line);
    if (s) metrics.push({ key: `nic.${s[1]}.${s[2]}`, label: `${s[1]} ${s[2]}`, value: Number(s[3]), unit: 'count', better: 'lower' });
  }
  const lshw = between(stdout, 'lshw').trim();
  if (lshw) facts.lshw = lshw;
  for (const l of stdout.split('\n')) if (l.startsWith(`${MARK}note `)) notes.push(l.slice(`${MARK}note `.length));
  const ok = metrics.length > 0;
  return { ok, metrics, facts, notes, ...(ok ? {} : { error: 'no system information found in the output' }), ...(uname ? { toolVersion: uname } : {}) };
}

export const sysinfo: PresetDef<typeof params> = {
  id: 'sysinfo',
  title: 'System information',
  description: 'CPU model, vCPUs, threads per core, memory, kernel, OS, virtualisation, NIC driver and speed, ENA allowance counters. Read-only.',
  params,
  confirmations: () => [],
  script: (p, ctx) => wrapScript(body(p), { runDir: ctx.runDir, title: 'sysinfo' }),
  parse: (stdout) => parseSysinfo(stdout),
};
