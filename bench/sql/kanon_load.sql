-- The Hoppe et al. recordings (all 20 participants of ../shared/data) and the 42 participants' facts.
-- psql variable :data is the hoppe2018_everyday directory.
CREATE TABLE hoppe_samples (participant text, t_ms float8, x float8, y float8,
                            pupil_right float8, pupil_left float8, event text);
CREATE TABLE hoppe_participants (participant text PRIMARY KEY, sex text, age int, neuroticism float8,
    extraversion float8, openness float8, agreeableness float8, conscientiousness float8,
    perceptual_curiosity float8, curiosity_exploration float8, shop_enter_s float8, shop_leave_s float8,
    samples_included_here text);
