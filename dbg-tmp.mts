import { startBenchLab } from './test/integration/node/bench/benchLab.ts';
import { runBench } from './src/node/bench/runner.ts';
const lab = await startBenchLab(['127.0.0.88', '127.0.0.89']);
const t0 = Date.now();
try {
  for (let i = 0; i < 3; i++) {
    const [r] = await runBench({ preset: 'iperf3', params: { duration: 3, port: 5841, address: 'public', serverBind: true }, hosts: [lab.host(0)], peer: lab.host(1), timeoutMs: 40000, connectOptions: lab.connectOptions(), onEvent: (e) => e.type !== 'progress' && e.type !== 'output' && console.log(Date.now() - t0, e.type, e.type === 'phase' ? e.phase : '') });
    console.log(r!.status, r!.error, r!.metrics[1]);
  }
} finally { await lab.stop(); }
