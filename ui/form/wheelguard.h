// SPDX-License-Identifier: Apache-2.0
#pragma once

class QWidget;

namespace wb {

/// Makes the mouse wheel change a spin box, combo box or slider under `root` only while the
/// user has focused that field: scrolling a form over its fields used to change them (Number
/// format fp32 → bf16, seed 42 → 41) with nothing but a "*" in the title to show it. Each such
/// field gets Qt::StrongFocus (a click or Tab focuses it, the wheel does not), and a wheel event
/// over it is ignored, so Qt hands it on to the enclosing scroll area, unless the field has
/// focus that the user gave it: a click, Tab, a shortcut, a key typed into it, or setFocus()
/// from code. The focus a window hands its first field when it is shown does not count.
///
/// Covers the fields under `root` now and those added later (a rebuilt panel, a dialog whose
/// parent is `root`): one application-wide event filter, installed by the first call, looks at
/// wheel, focus, mouse-press, key and polish events and acts on the fields with a guarded
/// ancestor. Scroll bars are not fields. Idempotent. GUI thread only.
void guardWheel(QWidget *root);

} // namespace wb
