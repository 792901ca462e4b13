// Every signal blocked for a slow capture (signal_hold.h).
#include "recorder/preload/signal_hold.h"

#include <pthread.h>

#include <cstdint>

namespace heaprec::recorder::preload {
namespace {

__thread uint32_t t_held __attribute__((tls_model("initial-exec")));

}  // namespace

SignalHold::SignalHold() : outer_(t_held == 0) {
  if (!outer_) return;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved_);  // returns an error code: errno untouched
  t_held = 1;
}

SignalHold::~SignalHold() {
  if (!outer_) return;
  t_held = 0;  // before unblocking: a handler that runs then is outside the hold
  pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
}

bool SignalsHeld() { return t_held != 0; }

}  // namespace heaprec::recorder::preload
