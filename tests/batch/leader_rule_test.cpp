// SPDX-License-Identifier: MIT
// The leader rule (leader_rule.h) against the brute-force model of it
// (leader_rule_model.h): rows visited in order, each of a node, with random
// ranked links between nodes (few distinct ranks, so that ties are common,
// and some nodes linked twice); a row joins its node's representative, else
// the nearest representative visited before it by a link (ties: the
// earliest), else becomes one. The rule is fed as its callers feed it:
// offers pushed by each new representative to its neighbours in link order,
// and offers pulled before a row's place in a shuffled order (the threshold
// join's threads meet the representatives in no particular order).
#include "batch/leader_rule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "leader_rule_model.h"

namespace simhash {
namespace {

struct Link {
  std::uint32_t first;  // nodes
  std::uint32_t second;
  double rank;
};

// Whether `link` joins nodes `a` and `b` (either way round).
bool joins(const Link& link, std::uint32_t a, std::uint32_t b) {
  return (link.first == a && link.second == b) || (link.second == a && link.first == b);
}

struct Case {
  std::vector<std::uint32_t> node_of;  // per row, in visit order
  std::size_t node_count = 0;
  std::vector<Link> links;
};

Case random_case(std::mt19937_64& random) {
  Case c;
  c.node_count = 1 + random() % 40;
  const std::size_t rows = random() % 80;
  for (std::size_t row = 0; row < rows; ++row) {
    c.node_of.push_back(static_cast<std::uint32_t>(random() % c.node_count));
  }
  const std::size_t links = random() % (3 * c.node_count);
  for (std::size_t i = 0; i < links; ++i) {
    const auto a = static_cast<std::uint32_t>(random() % c.node_count);
    const auto b = static_cast<std::uint32_t>(random() % c.node_count);
    if (a != b) {
      c.links.push_back(Link{a, b, static_cast<double>(random() % 4) - 1.5});
    }
  }
  return c;
}

// Where a row goes by the rule's definition.
struct Expected {
  std::uint32_t leader;
  bool by_offer;
  double rank;
};

// The shared model (leader_rule_model.h) asks for similarities, larger
// nearer: a link's is minus its rank (the nearest link between two nodes
// counts), and a row's own node is nearer than any link.
std::vector<Expected> model(const Case& c) {
  constexpr double kOwnNode = std::numeric_limits<double>::infinity();
  const std::vector<testing::ModelLeader> leaders =
      testing::leader_rule_model(c.node_of.size(), [&](std::size_t row, std::size_t leader) {
        const std::uint32_t node = c.node_of[row];
        const std::uint32_t other = c.node_of[leader];
        std::optional<double> similarity;
        if (node == other) {
          similarity = kOwnNode;
        }
        for (const Link& link : c.links) {
          if (joins(link, node, other)) {
            similarity = std::max(similarity.value_or(-link.rank), -link.rank);
          }
        }
        return similarity;
      });
  std::vector<Expected> places;
  for (std::uint32_t position = 0; position < leaders.size(); ++position) {
    const testing::ModelLeader& place = leaders[position];
    const auto leader = static_cast<std::uint32_t>(place.leader);
    if (leader == position || place.similarity == kOwnNode) {
      places.push_back(Expected{leader, false, 0});
    } else {
      places.push_back(Expected{leader, true, -place.similarity});
    }
  }
  return places;
}

void expect_place(const LeaderRule::Place& place, const Expected& expected, const Case& c,
                  std::uint32_t position, const std::string& context) {
  ASSERT_EQ(place.leader, expected.leader) << context << ", row " << position;
  ASSERT_EQ(place.by_offer, expected.by_offer) << context << ", row " << position;
  ASSERT_EQ(place.rank, expected.rank) << context << ", row " << position;
  if (place.by_offer) {
    // The link named is one between the two nodes, at that rank.
    ASSERT_LT(place.link, c.links.size()) << context << ", row " << position;
    const Link& link = c.links[place.link];
    const std::uint32_t node = c.node_of[position];
    const std::uint32_t other = c.node_of[place.leader];
    EXPECT_TRUE(joins(link, node, other)) << context << ", row " << position;
    EXPECT_EQ(link.rank, place.rank) << context << ", row " << position;
  }
}

// Each new representative offers itself to its neighbours, as
// leader_groups.cpp's pass does.
void check_pushed(const Case& c, const std::vector<Expected>& expected, int round) {
  LeaderRule rule(c.node_count);
  for (std::uint32_t position = 0; position < c.node_of.size(); ++position) {
    const std::uint32_t node = c.node_of[position];
    const LeaderRule::Place place = rule.place(position, node);
    expect_place(place, expected[position], c, position,
                 std::string("pushed, round ").append(std::to_string(round)));
    if (place.leader == position) {
      for (std::uint32_t index = 0; index < c.links.size(); ++index) {
        const Link& link = c.links[index];
        if (link.first == node || link.second == node) {
          rule.offer(link.first == node ? link.second : link.first, position, index, link.rank);
        }
      }
    }
  }
}

// Before its place, a row's node hears from the representatives made since
// it last looked, in a shuffled order, as the threshold join's probes do.
void check_pulled(const Case& c, const std::vector<Expected>& expected, int round,
                  std::mt19937_64& random) {
  LeaderRule rule(c.node_count);
  std::vector<std::uint32_t> representatives;
  std::vector<std::size_t> seen(c.node_count, 0);
  for (std::uint32_t position = 0; position < c.node_of.size(); ++position) {
    const std::uint32_t node = c.node_of[position];
    if (!rule.has_representative(node)) {
      std::vector<std::pair<std::uint32_t, std::uint32_t>> offers;  // (leader, link)
      for (std::size_t r = seen[node]; r < representatives.size(); ++r) {
        for (std::uint32_t index = 0; index < c.links.size(); ++index) {
          const Link& link = c.links[index];
          const std::uint32_t other = c.node_of[representatives[r]];
          if (joins(link, node, other)) {
            offers.emplace_back(representatives[r], index);
          }
        }
      }
      std::shuffle(offers.begin(), offers.end(), random);
      for (const auto& [leader, index] : offers) {
        rule.offer(node, leader, index, c.links[index].rank);
      }
      seen[node] = representatives.size();
    }
    const LeaderRule::Place place = rule.place(position, node);
    expect_place(place, expected[position], c, position,
                 std::string("pulled, round ").append(std::to_string(round)));
    if (place.leader == position) {
      representatives.push_back(position);
    }
  }
}

TEST(LeaderRule, MatchesTheRuleOverRandomLinks) {
  std::mt19937_64 random(20261126);
  std::size_t joined_by_offer = 0;
  std::size_t joined_own_node = 0;
  for (int round = 0; round < 300; ++round) {
    const Case c = random_case(random);
    const std::vector<Expected> expected = model(c);
    for (std::uint32_t position = 0; position < expected.size(); ++position) {
      joined_by_offer += expected[position].by_offer ? 1 : 0;
      joined_own_node += !expected[position].by_offer && expected[position].leader != position;
    }
    check_pushed(c, expected, round);
    check_pulled(c, expected, round, random);
    if (::testing::Test::HasFatalFailure()) {
      return;
    }
  }
  // The cases exercise every branch of the rule.
  EXPECT_GT(joined_by_offer, 1000U);
  EXPECT_GT(joined_own_node, 1000U);
}

// The tie rule on its own: as near, the earlier representative stays, in
// whichever order the offers come.
TEST(LeaderRule, TiesGoToTheEarlierRepresentative) {
  LeaderRule rule(3);
  EXPECT_EQ(rule.place(0, 0).leader, 0U);
  EXPECT_EQ(rule.place(1, 1).leader, 1U);
  rule.offer(2, 1, 7, 0.5);
  rule.offer(2, 0, 8, 0.5);
  rule.offer(2, 1, 9, 0.5);
  const LeaderRule::Place place = rule.place(2, 2);
  EXPECT_EQ(place.leader, 0U);
  EXPECT_TRUE(place.by_offer);
  EXPECT_EQ(place.link, 8U);
  // Offers to a node with a representative change nothing.
  rule.offer(0, 1, 3, -1.0);
  const LeaderRule::Place later = rule.place(3, 0);
  EXPECT_EQ(later.leader, 0U);
  EXPECT_FALSE(later.by_offer);
}

}  // namespace
}  // namespace simhash
