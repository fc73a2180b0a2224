"""scripts/nv-sass's control-word decoding, on listings built from chosen fields (no GPU, no
nvdisasm): each field must come back from its bits, and only global loads count as loads."""

import importlib.machinery
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load_nv_sass():
    path = os.path.join(HERE, "..", "nv-sass")
    loader = importlib.machinery.SourceFileLoader("nv_sass", path)
    spec = importlib.util.spec_from_loader("nv_sass", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


nv = load_nv_sass()


def control(stall, yld, wb, rb, wait, reuse=0):
    """The second 64-bit word of an instruction with these control fields (bits 41-61) and
    arbitrary operand bits below."""
    return (
        (reuse << 58) | (wait << 52) | (rb << 49) | (wb << 46) | (yld << 45) | (stall << 41)
        | 0x1E8B0B
    )


def listing(rows):
    """An `nvdisasm -c -hex` listing: per instruction its line and its second word's line."""
    out = ["        .headerflags    @\"EF_CUDA_SM90\""]
    for addr, text, hi in rows:
        out.append(f"        /*{addr:04x}*/                   {text} ;   /* 0x00000004030aa981 */")
        out.append(f"                                                        /* 0x{hi:016x} */")
    return "\n".join(out) + "\n"


def test_each_field_comes_back():
    rows = [
        (0x0, "@!P2 LDG.E.64.CONSTANT R10, [R3.U32+UR4], !P4", control(1, 0, 5, 7, 0)),
        (0x10, "LDG.E.128.CONSTANT R12, [R62.U32+UR4], !P4", control(2, 1, 5, 0, 0b000100)),
        (0x20, "HMMA.16816.F32 R0, R68.reuse, R72, R0", control(6, 0, 7, 7, 0b100001, 0b1010)),
        (0x30, "LDSM.16.M88.4 R68, [R107+0x4100]", control(15, 1, 3, 2, 0b010000)),
    ]
    words = nv.control_words(listing(rows))
    assert [w[0] for w in words] == ["0000", "0010", "0020", "0030"]
    assert [w[1] for w in words] == [r[1] for r in rows]
    assert [w[2:] for w in words] == [
        (1, 0, 5, 7, 0),
        (2, 1, 5, 0, 0b000100),
        (6, 0, 7, 7, 0b100001),
        (15, 1, 3, 2, 0b010000),
    ]
    text = nv.control_text(words).splitlines()
    assert text[0].startswith("0000 s 1   W5    ") and "wait" not in text[0]
    assert text[1].startswith("0010 s 2 y W5 R0 wait2 ")
    assert "wait05" in text[2] and " W" not in text[2]
    assert " W3 R2 wait4 " in text[3]


def test_only_global_loads_count_by_scoreboard():
    rows = [
        (0x0, "@P3 LDG.E.U16.CONSTANT R67, [R4.U32+UR4], !P0", control(1, 0, 5, 0, 0)),
        (0x10, "LDG.E.128.CONSTANT R52, [R2.U32+UR4], !P0", control(1, 0, 5, 0, 0)),
        (0x20, "@!P1 LDG.E.64.CONSTANT R14, [R5.U32+UR4], !P5", control(1, 0, 4, 0, 0)),
        (0x30, "LDSM.16.M88.4 R68, [R107+0x4100]", control(1, 0, 5, 7, 0)),
        (0x40, "LDS R2, [R88]", control(1, 0, 5, 7, 0)),
        (0x50, "STG.E [R2.64], R4", control(1, 0, 7, 1, 0)),
    ]
    counts = nv.load_scoreboards(nv.control_words(listing(rows)))
    assert dict(counts) == {5: 2, 4: 1}


def test_lines_without_a_second_word_are_skipped():
    text = "        /*0000*/  EXIT ;  /* 0x000000000000794d */\n"
    assert nv.control_words(text) == []


def test_spills_are_counted_beside_the_key_opcodes():
    # A plain `nvdisasm -c` listing: guarded and unguarded local-memory loads and stores (a
    # spill) are counted, other opcodes that merely start alike are not; absent keys read 0.
    sass = "\n".join(
        f"        /*{16 * i:04x}*/                   {text} ;"
        for i, text in enumerate(
            [
                "HMMA.16816.F32 R4, R68, R72, R4",
                "STL.64 [R1+0x10], R20",
                "@!P2 LDL.64 R20, [R1+0x10]",
                "LDL R3, [R1+0x4]",
                "LDSM.16.M88.4 R68, [R107+0x4100]",
                "LDS R2, [R88]",
                "LDGSTS.E [R3], [R4.64]",
            ]
        )
    )
    counts = nv.opcode_counts(sass)
    assert counts["LDL"] == 2 and counts["STL"] == 1 and counts["LDS"] == 1
    assert nv.key_counts(counts) == "HMMA 1, LDSM 1, STS 0, LDG 0, BAR 0, LDL 2, STL 1"


def test_the_main_loop_and_its_waits_for_loads():
    # A prologue, then a loop 0x20-0x80 (the unguarded BRA back to 0x20; a guarded backward
    # branch and a forward one are not the loop's edge): a load on scoreboard 5 issued at 0x30 and
    # waited on 3 instructions later; a wait on scoreboard 0 after an LDSM (not a load); and at
    # 0x20 a wait on scoreboard 4, written last by the load at 0x70 of the previous iteration
    # (around the back edge: 2 instructions before it).
    rows = [
        (0x00, "LDG.E.128.CONSTANT R4, [R2.U32+UR4]", control(1, 0, 5, 7, 0)),
        (0x10, "@P0 BRA 0x00", control(1, 0, 7, 7, 0)),
        (0x20, "IMAD.MOV.U32 R9, RZ, RZ, R8", control(1, 0, 7, 7, 0b010000)),
        (0x30, "LDG.E.128.CONSTANT R12, [R2.U32+UR4]", control(1, 0, 5, 7, 0)),
        (0x40, "LDSM.16.M88.4 R20, [R7+0x100]", control(1, 0, 0, 7, 0)),
        (0x50, "HMMA.16816.F32 R0, R20, R24, R0", control(1, 0, 7, 7, 0b000001)),
        (0x60, "MOV R16, R12", control(1, 0, 7, 7, 0b100000)),
        (0x70, "@P1 LDG.E.64.CONSTANT R8, [R3.U32+UR4]", control(1, 0, 4, 7, 0)),
        (0x80, "BRA 0x20", control(1, 0, 7, 7, 0)),
        (0x90, "@P2 BRA 0xb0", control(1, 0, 7, 7, 0)),
        (0xA0, "EXIT", control(1, 0, 7, 7, 0)),
    ]
    words = nv.control_words(listing(rows))
    first, last = nv.main_loop(words)
    assert (words[first][0], words[last][0]) == ("0020", "0080")
    waits = nv.loop_load_waits(words, first, last)
    assert [(a, sb, cover) for a, _, sb, cover in waits] == [("0020", 4, 2), ("0060", 5, 3)]
    assert nv.loop_summary(words) == (
        "loop 0020-0080: 7 instructions, 2 waits on its loads' scoreboards, after 2, 3 instructions"
    )
    # Only a guarded backward branch, or none: no loop, nothing said.
    assert nv.main_loop(words[:2]) is None
    assert nv.loop_summary(words[9:]) == ""
