// The device work of a sweep, as the worker process's handlers (tuner/worker/serve.hpp). All of
// it runs in the worker so that a faulting or hanging kernel takes down only the worker.
//
// Requests (JSON, one per line), in the order the driver sends them:
//   {"op":"devices"}  the host's GPUs, nothing opened (a sweep on several GPUs asks first)
//                                                  -> {"devices": [device info..], "status": ".."}
//   {"op":"open", "device":0}                      -> device info + streaming-read ceiling
//   {"op":"shape", "n":N, "k":K, "seed":S, "llc_factor":F, "llc_bytes":B, "max_bytes":X}
//        random weights for (N, K) (packed for the arch), and a pool of `copies` independent
//        copies of weights, activations and outputs for timing, cut into slices for screening
//        (measure/pool.hpp)                          -> {"copies": P, "slices": R, "slice_len": S}
//   {"op":"verify", "kernel":name, "binary":path, "config":[WV,SK,MB,NPW,NT,GEN,ST], "m":M,
//    "seed":S}   (a config of 5 elements is generation 0, mma_sync, ST 0; kernels/config.hpp)
//        -> {"pass": bool, "bad": n, "max_ratio": r, "detail": "..."}
//   {"op":"race", "m":M, "entries":[{"kernel":..,"binary":..,"config":[..]} |
//                                   {"baseline":"bf16"|"fp8_block"}], "warmup": W}
//        prepares each entry (a baseline's own pool and graph; a kernel's slice graphs are
//        captured and uploaded when first sampled), W untimed slice replays each
//                                                  -> {"ready":[bool..], "setup_seconds":{..}}
//   {"op":"sample", "entry":i, "full":F}
//        one sample: the next slice of the shared cursor, or (F, and always for baselines)
//        the whole pool                            -> {"us": t per launch, "launches": L}
//   {"op":"sample_many", "entries":[i, ...], "full":F}
//        one sample of each (distinct) entry, enqueued back to back, collected with one wait
//                                                  -> {"us": [t..], "launches": [L..]}
//   {"op":"ping"}
// A GPU error during a launch poisons the context: such replies carry "fatal": true and the
// worker exits, so the driver's next request starts a fresh process.
#pragma once

#include "tuner/worker/serve.hpp"

namespace r4::worker {

// Handlers for the ops above; the state lives as long as the returned handlers.
[[nodiscard]] Handlers device_handlers();

}  // namespace r4::worker
