"""Which part of a 6-vector comes first: as a sentence states it (`parts` proposer) and as
a doc comment states it (`doc` kind, match = "order")."""

from __future__ import annotations

import pytest

from verifier.claims.kinds._parts import doc_order
from verifier.draft.proposers.parts import stated_order

A, L = "angular", "linear"


@pytest.mark.parametrize("text, want", [
    ("`SpatialVelocity` 的六项是角速度在前、线速度在后。", (A, L)),
    ("输出线速度在前。", (L, A)),
    ("先力矩，后力。", (A, L)),
    ("前三项为力矩，后三项为力。", (A, L)),
    ("后三项是角速度。", (L, A)),
    ("空间力按 [τ; f] 排列。", (A, L)),
    ("写成 [v_MBo_E; ω_MB_E]。", (L, A)),
    ("the angular part first", (A, L)),
    ("cvel is rot:lin", (A, L)),
    # 力矩 is no force; statements that disagree, or none, decide nothing
    ("力矩在前。", (A, L)),
    ("输出角速度在前，与 free qvel 的线速度在前不同。", None),
    # the steps of an operation, or letters and characters that start other words
    ("变换先旋转后平移。", None),
    ("先 validate 再调用，线程在前。", None),
    ("线速度与角速度都以世界轴表达。", None),
])
def test_the_order_a_sentence_states(text, want):
    assert stated_order(text) == want


@pytest.mark.parametrize("doc, want", [
    ("Compute object 6D velocity (rot:lin) in object-centered frame.", (A, L)),
    ("Extract 6D force:torque given contact id.", (L, A)),
    ("has 6 elements with an angular (rotational) velocity ω (3-element vector) on top\n"
     "of a translational (linear) velocity v", (A, L)),
    ("a spatial force F with a torque τ on top of a force f", (A, L)),
    ("linear and angular damping", None),
    ("The force is first computed in the world frame, then the torque.", None),
    ("The torque comes first, then the force.", (A, L)),
    ("", None),
])
def test_the_order_a_doc_comment_states(doc, want):
    assert doc_order(doc) == want
