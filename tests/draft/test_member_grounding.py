"""A bare name that is only a member of a class the lesson never names is grounded in
that class only when every source file of the upstream is served: otherwise the class
the sentence means may be the one whose file is missing, and a draft on a namesake
would verify while checking nothing the sentence says."""

from __future__ import annotations

from verifier.draft.context import Resolver
from verifier.draft.index import Def, UpstreamIndex
from verifier.draft.spans import Ref


def _index(unavailable: int) -> UpstreamIndex:
    defs = [Def("SapModel", ("drake", "SapModel"), "class", "sap/sap_model.h", 10, 90,
                "pinned", "cpp", None, "namespace", None),
            Def("SetVelocities", ("drake", "SapModel", "SetVelocities"), "method",
                "sap/sap_model.h", 40, 40, "pinned", "cpp", ("v",), "class", None)]
    return UpstreamIndex("drake", defs, {}, {}, unavailable)


def _resolve(unavailable: int, text: str):
    r = Resolver({"drake": _index(unavailable)}, text, ["SetVelocities"])
    return r.resolve(Ref("SetVelocities", ("SetVelocities",), call=True))


def test_member_of_an_unnamed_class_needs_a_complete_index():
    text = "调用 `SetVelocities` 写入速度。"
    assert _resolve(0, text).how == "member"         # every file served: the only owner
    assert _resolve(3, text) is None                  # files missing: no guess


def test_member_of_a_class_the_lesson_names_is_grounded_either_way():
    r = Resolver({"drake": _index(3)}, "`SapModel` 的 `SetVelocities`。", ["SapModel", "SetVelocities"])
    hit = r.resolve(Ref("SetVelocities", ("SetVelocities",), call=True))
    assert hit is not None and hit.how == "context" and hit.best.container == "SapModel"
