# SPDX-License-Identifier: MIT
# Read by ctest (a TEST_INCLUDE_FILES entry of CMakeLists.txt, after the
# GoogleTest programs' discovered tests): a COST for each of the suite's
# longest tests, so that `ctest -j` starts them first. ctest orders by COST
# only where it has no CTestCostData.txt of an earlier run, as on a fresh CI
# machine; without it the discovery order started the 124 s allocation sweep
# (Release) and the 95 s memory-bound test (ASan+UBSan) near the end, where
# each ran on alone while the other core idled. The figures are seconds in
# the ASan+UBSan build (the Release build's sweep put first too); only their
# order matters. A name a build lacks is ignored.
set_tests_properties([=[OutOfMemory.EveryAllocationPointFailsCleanly]=] PROPERTIES COST 130)
set_tests_properties([=[DedupMemory.StaysWithinTheStatedBound]=] PROPERTIES COST 28)
set_tests_properties([=[BatchInterrupt.LongSearchesStopSoonAfterAnInterrupt]=] PROPERTIES COST 59)
set_tests_properties([=[IndexCommands.InterruptStopsRebuildAndCheckLeavingTheIndexAsItWas]=]
                     PROPERTIES COST 49)
set_tests_properties([=[SimilarPairs.OneTableEqualsBruteForce]=] PROPERTIES COST 13)
set_tests_properties([=[BatchInterrupt.EveryPhaseStopsWithinFiftyMilliseconds]=] PROPERTIES COST 29)
set_tests_properties([=[VerifiedDedup.ThresholdJoinEqualsBruteForceOverEveryPair]=] PROPERTIES COST 16)
set_tests_properties([=[SimhashDedup.GivesTheRecipesGroupsInIdOrder]=] PROPERTIES COST 24)
set_tests_properties([=[VerifiedDedup.EqualsBruteForceOverRandomRows]=] PROPERTIES COST 8)
set_tests_properties([=[Similarity.AgreesWithTheSameSimilaritiesInSql]=] PROPERTIES COST 23)
set_tests_properties([=[BatchSql.MatchBruteForceAtSeveralRadiiAndBlockSettings]=] PROPERTIES COST 17)
