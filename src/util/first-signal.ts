/**
 * Resolves with the first SIGINT or SIGTERM. Both handlers go once the first arrives, so a second
 * Ctrl-C gets Node's default and ends a process whose shutdown hangs; `cancel` removes them when
 * the wait is given up.
 */
export function firstSignal(): { signal: Promise<NodeJS.Signals>; cancel: () => void } {
  let stop: (signal: NodeJS.Signals) => void = () => {};
  const cancel = () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    stop = (name) => {
      cancel();
      resolve(name);
    };
  });
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return { signal, cancel };
}
