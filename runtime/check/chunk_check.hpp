// The check of a chunked graph against eager chunking (docs/numerics.md section 11.4), one API
// for `fxlens check CHUNKED ORIGINAL --against eager-chunking` and the window's run panel.
// ORIGINAL runs once unchunked and once through the eager-chunking reference
// (runtime/check/eager_chunking.hpp); CHUNKED runs on the same inputs; every output of CHUNKED is
// compared bitwise with the reference's.
//
// Where the reference and the unchunked run differ, the difference is explained only when it is
// proven (float64_proof.hpp): both are re-run with every floating value widened to float64, and
// "reduction order" is said only when the float64 difference is at most 2^-16 of the float32
// one; otherwise the output's values differ, and the first of the reference's region live-outs
// whose values differ by that rule is named (where the reference stops computing the graph's
// function).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/chunk_spec.hpp"
#include "runtime/check/eager_chunking.hpp"
#include "runtime/check/float64_proof.hpp"
#include "runtime/check/graph_check.hpp"

namespace fxl {

// Why the reference's value of an output is not bitwise the unchunked run's.
enum class ChunkExplanation
{
    None,  // bitwise equal (or not compared: None on a side)
    ReductionOrder,  // proven in float64: the same function, summed in another order
    ValuesDiffer,  // the float64 results differ too: the reference computes another function
};
// "", "reduction order", "values differ"
const char* chunkExplanationText(ChunkExplanation e);

struct ChunkCheckRow
{
    std::string name;  // out_K
    std::string node;  // CHUNKED's node returned there
    EagerOutputInfo how;  // how the reference obtained it
    bool noneBoth = false, noneOne = false;  // None on both sides / on one side only
    std::optional<TensorDiff> vsReference, vsUnchunked, referenceVsUnchunked;
    ChunkExplanation explanation = ChunkExplanation::None;
    std::optional<OrderProof> proof;  // when the reference and the unchunked run differ
    std::string formula;  // the chunk pass's note on `node` (meta.chunk.formula), "" when none
    bool equal() const { return noneBoth || (vsReference && vsReference->bitwiseEqual); }
};

// The first region live-out of the reference whose values are not the unchunked graph's by the
// float64 rule: where the reference's function departs.
struct ChunkDeparture
{
    std::string node;  // the live-out
    std::string region;  // "blocks.0" or "<whole graph>"
    std::string combine;  // "cat", "sum", ...
    OrderProof proof;
};

struct ChunkCheckOutcome
{
    SafeTensorsFile inputs;  // ORIGINAL's inputs as used; CHUNKED ran on them too
    std::vector<std::string> generatedInputs;  // ORIGINAL's placeholders generated
    CheckRun chunked, original;
    std::shared_ptr<Backend> referenceBackend;  // holds the reference's values
    EagerChunkResult reference;
    std::vector<ChunkCheckRow> rows;  // by position
    bool countsDiffer = false;  // CHUNKED and ORIGINAL have different output counts
    int differing = 0;  // outputs not bitwise equal to the reference (a count mismatch counts one)
    bool proofRan = false;  // the float64 runs were made
    std::optional<ChunkDeparture> departure;  // when an output's values differ
    Verdict verdict = Verdict::Different;
};

// Throws CheckRunError (stage "ORIGINAL", "eager-chunking reference on ORIGINAL", "CHUNKED",
// "float64 proof") when a run fails, std::invalid_argument when the reference refuses the spec.
ChunkCheckOutcome checkAgainstEagerChunking(const CheckGraph& chunked, const CheckGraph& original,
                                            const ChunkSpec& spec, const CheckOptions& opts);

// "cat along dim 0 of 2 pieces; vs unchunked: reduction order (float64 ...)" : the row's note as
// the window shows it.
std::string chunkRowNote(const ChunkCheckRow& row);

}  // namespace fxl
