/**
 * Starts a CPU-time stopwatch for this process: unlike wall-clock time, it does not grow while the
 * machine is busy with other work, so a test can bound how much work something did without
 * flaking under load.
 */
export function cpuStopwatch(): () => number {
  const start = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
}
