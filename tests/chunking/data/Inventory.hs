{-# LANGUAGE OverloadedStrings #-}
-- | Stock levels per warehouse.
module Shop.Inventory
  ( Stock (..)
  , Warehouse
  , reserve
  , (|+|)
  ) where

import qualified Data.Map.Strict as Map
import Data.Text (Text)

-- | Units on hand and units promised to open orders.
data Stock = Stock
  { onHand   :: !Int
  , reserved :: !Int
  } deriving (Show, Eq)

newtype Sku = Sku Text
  deriving (Show, Eq, Ord)

-- | A warehouse: stock per article.
type Warehouse = Map.Map Sku Stock

-- | Units that can still be promised.
available :: Stock -> Int
available s = onHand s - reserved s

-- | Reserve units of an article, if enough are available.
reserve :: Sku -> Int -> Warehouse -> Either Text Warehouse
reserve sku n house =
  case Map.lookup sku house of
    Nothing -> Left "unknown article"
    Just s
      | available s < n -> Left "not enough stock"
      | otherwise -> Right (Map.insert sku (bump s) house)
  where
    bump s = s { reserved = reserved s + n }
{-# INLINE reserve #-}

-- | Stock of two deliveries together.
(|+|) :: Stock -> Stock -> Stock
Stock a b |+| Stock c d = Stock (a + c) (b + d)
infixl 6 |+|

restock :: Int -> Stock -> Stock
restock 0 s = s
restock n s = s { onHand = onHand s + n }

-- | Things that can be counted on a shelf.
class Countable a where
  -- | How many units.
  count :: a -> Int
  count _ = 1
  isEmpty :: a -> Bool

instance Countable Stock where
  count = onHand
  isEmpty s = onHand s == 0

instance Countable a => Countable [a] where
  count = sum . map count
  isEmpty = all isEmpty

deriving instance Ord Stock
