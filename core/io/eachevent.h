// SPDX-License-Identifier: Apache-2.0
#pragma once
// Observers that treat every run event alike (write it as a line, remember and forward it).

#include "core/events/trainingobserver.h"

#include <string>

namespace wb {

/// Calls the hook of `observer` that takes `event` (logMessage for a log line).
inline void notify(TrainingObserver &observer, const RunStarted &event) { observer.runStarted(event); }
inline void notify(TrainingObserver &observer, const StepMetrics &event) { observer.stepCompleted(event); }
inline void notify(TrainingObserver &observer, const EvalMetrics &event) { observer.evaluationCompleted(event); }
inline void notify(TrainingObserver &observer, const CheckpointSaved &event) { observer.checkpointSaved(event); }
inline void notify(TrainingObserver &observer, const std::string &logLine) { observer.logMessage(logLine); }
inline void notify(TrainingObserver &observer, const CoachNote &event) { observer.coachNote(event); }
inline void notify(TrainingObserver &observer, const RunFinished &event) { observer.runFinished(event); }

/// A TrainingObserver whose seven hooks all call one member of `Derived`, onEvent(event),
/// overloaded or a template, with the hook's argument: a RunStarted, StepMetrics, EvalMetrics,
/// CheckpointSaved, CoachNote or RunFinished, or the std::string of a log line. CRTP:
/// `class Lines : public EachEventObserver<Lines>` (onEvent public, or this class a friend).
/// Thread rules: those of the hooks (the training thread's).
template <typename Derived>
class EachEventObserver : public TrainingObserver
{
public:
    void runStarted(const RunStarted &info) override { self().onEvent(info); }
    void stepCompleted(const StepMetrics &m) override { self().onEvent(m); }
    void evaluationCompleted(const EvalMetrics &m) override { self().onEvent(m); }
    void checkpointSaved(const CheckpointSaved &c) override { self().onEvent(c); }
    void logMessage(const std::string &line) override { self().onEvent(line); }
    void coachNote(const CoachNote &n) override { self().onEvent(n); }
    void runFinished(const RunFinished &r) override { self().onEvent(r); }

private:
    Derived &self() { return static_cast<Derived &>(*this); }
};

} // namespace wb
